"""The grammars' analysis is cached between processes only in a directory of the user's
own that no one else can read or write (Lark loads the cache with pickle)."""

from __future__ import annotations

import os

from assay.grammar.parser import parser_cache


def test_the_cache_is_in_a_private_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = parser_cache("template.lark")
    assert path == str(tmp_path / "assay" / "lark-template.lark.cache")
    assert os.stat(tmp_path / "assay").st_mode & 0o777 == 0o700


def test_no_cache_in_a_directory_others_can_write(tmp_path, monkeypatch):
    (tmp_path / "assay").mkdir(mode=0o777)
    os.chmod(tmp_path / "assay", 0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parser_cache("template.lark") is False
