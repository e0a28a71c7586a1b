"""The Java regex checker (assay.grammar.java_regex) against the JVM's own
``java.util.regex.Pattern``: on a corpus of valid and invalid patterns (Java-only syntax
included) judged by the suite's Spark server, as ``assay run`` asks it, and on generated
patterns judged by ``Pattern.compile`` in a JVM of its own."""

from __future__ import annotations

import base64
import random
import shutil
import subprocess

import pytest

from assay.grammar.java_regex import java_regex_error
from tests.grammar.java_regex_corpus import INVALID, NEWER_JAVA, VALID


@pytest.mark.spark
def test_the_checker_agrees_with_the_server_on_the_corpus(spark):
    from assay.emit.spark import uncompilable_patterns

    refused_by_java = set(uncompilable_patterns(spark, VALID + INVALID))
    refused_here = {p for p in VALID + INVALID if java_regex_error(p) is not None}
    assert refused_by_java == set(INVALID)  # the corpus says what Java says
    agree = sum((p in refused_by_java) == (p in refused_here) for p in VALID + INVALID)
    print(f"agreement with the server's JVM: {agree} of {len(VALID + INVALID)}")
    assert refused_here == refused_by_java


def test_names_only_newer_java_knows_are_accepted():
    assert [p for p in NEWER_JAVA if java_regex_error(p) is not None] == []


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("a{2,1}", "Illegal repetition range near index 5"),
        ("[z-a]", "Illegal character range near index 3"),
        ("a**", "Dangling meta character '*' near index 2"),
        ("(?P<n>x)", "Unknown inline modifier near index 2"),
        ("\\k<n>", "named capturing group <n> does not exist near index 4"),
        ("(?<=(ab)*)c", "Look-behind group does not have an obvious maximum length near index 8"),
        ("\\p{alpha}", "Unknown character property name {alpha} near index 8"),
        ("([a-z", "Unclosed character class near index 4"),
    ],
)
def test_java_s_description_and_index(pattern, text):
    refused = java_regex_error(pattern)
    assert refused is not None and refused.text == text


# --- generated patterns against a JVM ---------------------------------------------------------

JAVA_SOURCE = """
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.*;
public class PatternCheck {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = r.readLine()) != null) {
      String p = new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8);
      try { Pattern.compile(p); System.out.println("OK"); }
      catch (Throwable e) { System.out.println("ERR"); }
    }
  }
}
"""

ATOMS = str.split(
    "a ab \\d \\w \\s \\h \\H \\v \\R \\X . ^ $ \\b \\B \\A \\z \\Z \\G \\1 \\2 \\12 \\0 \\07 "
    "\\08 \\0377 \\x41 \\x4 \\x{41} \\x{110000} \\u0041 \\u004 \\cA \\c \\e \\a \\k<n> \\k<m> "
    "\\kx \\p{L} \\pL \\p{Lu} \\p{IsLatin} \\p{InGreek} \\p{javaLowerCase} \\p{Alpha} "
    "\\p{alpha} \\p{IsAlpha} \\p{sc=Latn} \\p{gc=Lu} \\p{foo=bar} \\p{} \\p{L \\P{N} \\y \\i "
    "\\- \\. \\\\ ] } { {1} [a-z] [z-a] [^a] []a] [a-] [-a] [a&&b] [a&&[^b]] [&&a] [&&] [a&&] "
    "[[a]b] [\\d-z] [a-\\d] [\\v-\\x0d] [\\b] [\\1] [\\p{L}&&\\p{Lu}] [ [a (?i) (?x) (?-i) "
    "(?i-x:a) (?y) (?$) (?#x) \\Q.*\\E \\Q \\E # é \\é",
    " ",
)
QUANTIFIERS = str.split(
    "- - - * + ? *? +? ?? *+ ++ ?+ {2} {2,} {2,3} {3,2} {,2} {2 {2,x} {99999999999} {0,1} "
    "{0,1}+ ** {1,2147483647}",
    " ",
)
GROUPS = str.split(
    "(%s) (?:%s) (?=%s) (?!%s) (?<=%s) (?<!%s) (?>%s) (?<n>%s) (?<n>%s)(?<n>x) (?<1n>%s) "
    "(%s (?i:%s) (?x:%s) %s|%s (%s|%s)",
    " ",
)


def _generated(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        quantifier = rng.choice(QUANTIFIERS).replace("-", "")
        if depth < 3 and rng.random() < 0.3:
            group = rng.choice(GROUPS)
            while "%s" in group:
                group = group.replace("%s", _generated(rng, depth + 1), 1)
            parts.append(group + quantifier)
        else:
            parts.append(rng.choice(ATOMS) + quantifier)
    return "".join(parts)


@pytest.mark.slow
def test_the_checker_agrees_with_the_jvm_on_generated_patterns(tmp_path):
    java = shutil.which("java")
    assert java is not None, "a JVM (Java 17) is needed, as for the embedded server"
    (tmp_path / "PatternCheck.java").write_text(JAVA_SOURCE)
    rng = random.Random(20240612)
    patterns = list(dict.fromkeys(_generated(rng) for _ in range(3000)))
    lines = "".join(base64.b64encode(p.encode()).decode() + "\n" for p in patterns)
    done = subprocess.run(
        [java, "PatternCheck.java"], input=lines, capture_output=True, text=True,
        cwd=tmp_path, timeout=300, check=True,
    )  # fmt: skip
    java_accepts = [v == "OK" for v in done.stdout.splitlines()]
    assert len(java_accepts) == len(patterns)
    disagree = [
        (p, ok) for p, ok in zip(patterns, java_accepts, strict=True)
        if (java_regex_error(p) is None) != ok
    ]  # fmt: skip
    refused = java_accepts.count(False)
    print(
        f"{len(patterns)} generated patterns, {refused} refused by Java: {len(disagree)} disagree"
    )
    assert disagree == []
