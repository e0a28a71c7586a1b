"""data-validator's ``outputs`` (a JSON report to a file or piped to a command) and
``email`` (the HTML report), as client-side reports."""

from __future__ import annotations

import os
import re

from assay.config.node import Node, unknown_message
from assay.dialects.base import Context
from assay.dialects.data_validator.shell_commands import check_shell_refs, shown_command
from assay.dialects.data_validator.variables import Variables
from assay.grammar import references
from assay.ir.outputs import EmailReport, Report, ReportFile, ReportPipe

EMAIL_KEYS = frozenset({"smtpHost", "subject", "from", "to", "cc", "bcc"})


def read_outputs(doc: Node, ctx: Context, variables: Variables) -> None:
    node = doc.get("outputs")
    if node is None:
        return
    for item in ctx.attempt(node.as_list, "a list of outputs") or []:
        report = ctx.attempt(_output, item, ctx, variables)
        if report is not None:
            ctx.reports.append(report)


def _output(item: Node, ctx: Context, variables: Variables) -> Report:
    mapping = item.as_mapping("an output (a mapping with 'filename' or 'pipe')")
    if "filename" in mapping:
        item.check_keys({"filename", "append"})
        append = item.get("append")
        path = variables.text(item.require("filename"), "a file name")
        return ReportFile(
            _local_file(path, item.require("filename")),
            bool(append and append.as_bool()),
            item.origin,
        )
    if "pipe" in mapping:
        item.check_keys({"pipe", "ignoreError"})
        pipe = item.require("pipe")
        command = pipe.as_str("a program to pipe the JSON report to")
        if not ctx.options.allow_shell:
            raise pipe.error(
                f"the output pipes the report to a shell command ({shown_command(pipe)}); shell "
                "commands run only with --allow-shell",
                hint="pass --allow-shell if you trust this config",
            )
        check_shell_refs(command, pipe)
        env = tuple(
            (r, variables.values[r])
            for r in references(command, pipe.origin, escapes=False)
            if r in variables.values
        )
        ignore = item.get("ignoreError")
        return ReportPipe(command, bool(ignore and ignore.as_bool()), env, item.origin)
    raise item.error(unknown_message("output", ", ".join(mapping) or "{}", ("filename", "pipe")))


def _local_file(path: str, node: Node) -> str:
    """A report file name: local paths (``/x``, ``local:///x``, or relative to the current
    directory); ``hdfs://`` and other remote schemes are refused."""
    if path.startswith("local://"):
        path = path[len("local://") :]
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", path):
        raise node.error(
            f"cannot write the report to '{path}': only local files are supported",
            hint="write to a local path and copy it (hdfs:// outputs are not reproduced)",
        )
    return os.path.abspath(path)


_ADDRESS = re.compile(r"[^@\s,]+@[^@\s,]+")


def read_email(node: Node, variables: Variables) -> EmailReport:
    node.as_mapping("an email config")
    node.check_keys(EMAIL_KEYS)
    node = variables.node(node)

    def addresses(key: str, required: bool) -> tuple[str, ...]:
        child = node.get(key)
        if child is None:
            if required:
                node.require(key)
            return ()
        found: list[str] = []
        for item in child.as_list("a list of email addresses", non_empty=required):
            for part in item.as_str("an email address").split(","):
                address = part.strip()
                if not _ADDRESS.fullmatch(address):
                    raise item.error(f"'{address}' is not an email address")
                found.append(address)
        return tuple(found)

    sender = node.require("from").as_str("an email address")
    if not _ADDRESS.fullmatch(sender.strip()):
        raise node.require("from").error(f"'{sender}' is not an email address")
    return EmailReport(
        smtp_host=node.require("smtpHost").as_str("an SMTP host"),
        subject=node.require("subject").as_str("a subject", allow_empty=True),
        sender=sender.strip(),
        to=addresses("to", True),
        cc=addresses("cc", False),
        bcc=addresses("bcc", False),
        origin=node.origin,
    )
