"""The command line on real-world files (issue 12): a text the chunker fails on, FIFOs and device nodes, its own
output inside an input folder, unreadable folders, byte order marks, bad options, Ctrl-C, the summary.

Tests run in-process through ``main`` where nothing can hang; a FIFO only in a subprocess with a timeout."""

from __future__ import annotations

import codecs
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import chunkwise
from chunkwise.cli import chunk as cli, outputs
from chunkwise.__main__ import main
from support.cli_files import write_files


def records(path: Path) -> list:
    # json.loads on every line: a partial last line would fail here
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def main_or_interrupt(argv: list) -> object:
    """main's exit status; a KeyboardInterrupt escaping it is a failed assertion, not the end of the test session."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        return "KeyboardInterrupt escaped main()"


def run(*args: str) -> subprocess.CompletedProcess:
    # The timeout only stops a hang (the defect), it measures nothing.
    return subprocess.run([sys.executable, "-m", "chunkwise", *args], capture_output=True, text=True, timeout=20)


@pytest.fixture
def poisoned():
    """The core panics on any text holding POISON, in a batch and alone: a text the core cannot chunk."""
    chunkwise._core._panic_on("POISON")
    try:
        yield
    finally:
        chunkwise._core._panic_on(None)


def batches_call(monkeypatch, hook) -> None:
    """Runs ``hook(payloads)`` before each batch the command line writes (its one seam into the core)."""
    real = outputs.JsonlWriter.batch

    def batch(self, chunker, payloads, sources, paged=False, strategies=None):
        hook(payloads)
        return real(self, chunker, payloads, sources, paged, strategies)

    monkeypatch.setattr(outputs.JsonlWriter, "batch", batch)


# -- defect 1: a text the chunker fails on costs only itself --------------------------------------------------------


def test_a_failing_text_costs_only_itself(tmp_path, capsys, monkeypatch, poisoned):
    monkeypatch.setattr(cli, "BATCH_FILES", 2)  # one clean batch, one with the bad text, one after it
    folder = tmp_path / "docs"
    write_files(folder, {f"{n}.txt": f"Text {n}. More words." for n in "abde"})
    write_files(folder, {"c.txt": "A POISON text."})
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(folder), "--size", "10", "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"failed {folder / 'c.txt'}: internal error" in err and "POISON" in err
    assert "chunkwise: 4 documents" in err and "chunkwise: 1 failed: chunking error" in err
    got = records(out)
    assert {Path(r["source"]).name for r in got} == {"a.txt", "b.txt", "d.txt", "e.txt"}
    assert [r["text"] for r in got if r["source"].endswith("d.txt")] == ["Text d.", "More", "words."]


# -- defect 2: regular files only -----------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_skipped_not_waited_on(tmp_path):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha beta."})
    os.mkfifo(folder / "pipe")
    proc = run("chunk", str(folder), "--no-progress")
    assert proc.returncode == 1, proc.stderr
    assert f"skipped {folder / 'pipe'}: not a regular file" in proc.stderr
    assert [json.loads(line)["text"] for line in proc.stdout.splitlines()] == ["Alpha beta."]
    # Given directly, too: reported, not read.
    proc = run("chunk", str(folder / "pipe"))
    assert proc.returncode == 1 and "not a regular file" in proc.stderr and proc.stdout == ""


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_node_is_not_read(tmp_path, capsys):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha beta."})
    (folder / "null").symlink_to("/dev/null")  # a symlink is followed: what it points to must be a regular file
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(folder), "/dev/null", "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"skipped {folder / 'null'}: not a regular file" in err and "skipped /dev/null: not a regular file" in err
    assert "chunkwise: 1 document," in err and [r["text"] for r in records(out)] == ["Alpha beta."]


# -- defect 3: the output is never read, and appears whole or not at all --------------------------------------------


def test_output_inside_an_input_folder_is_not_read(tmp_path, capsys):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha beta.", "sub/b.txt": "Gamma."})
    out = folder / "chunks.jsonl"
    for spelling in (out, folder / "sub" / ".." / "chunks.jsonl", out):
        assert main(["chunk", str(folder), "--out", str(spelling), "--no-progress"]) == 0
        assert "chunkwise: 2 documents," in capsys.readouterr().err
        assert {Path(r["source"]).name for r in records(out)} == {"a.txt", "b.txt"}
    os.link(out, folder / "hard-link.jsonl")  # the same file under another name
    assert main(["chunk", str(folder), "--out", str(out), "--no-progress"]) == 0
    assert "chunkwise: 2 documents," in capsys.readouterr().err


def test_stdout_redirected_into_an_input_folder_is_not_read(tmp_path):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha beta."})
    for _ in range(2):
        with open(folder / "chunks.jsonl", "w") as stdout:  # what `chunkwise chunk docs > docs/chunks.jsonl` does
            proc = subprocess.run(
                [sys.executable, "-m", "chunkwise", "chunk", str(folder)], stdout=stdout, stderr=subprocess.PIPE,
                text=True, timeout=20,
            )
        assert proc.returncode == 0 and "chunkwise: 1 document," in proc.stderr, proc.stderr
    assert [r["text"] for r in records(folder / "chunks.jsonl")] == ["Alpha beta."]


def test_interrupted_run_leaves_the_previous_output(tmp_path, capsys, monkeypatch):
    seen = []

    def interrupt(payloads):
        seen.append(out.read_text(encoding="utf-8"))  # what a reader of --out sees while the run goes on
        if len(seen) == 2:
            raise KeyboardInterrupt

    batches_call(monkeypatch, interrupt)
    monkeypatch.setattr(cli, "BATCH_FILES", 1)
    write_files(tmp_path / "docs", {"a.txt": "Alpha.", "b.txt": "Beta."})
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    assert main_or_interrupt(["chunk", str(tmp_path / "docs"), "--out", str(out), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert err.endswith("chunkwise: interrupted\n") and "Traceback" not in err
    assert seen == ["previous\n", "previous\n"]
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "out.jsonl"]  # no temporary file left behind


def test_a_new_output_file_gets_the_usual_permissions(tmp_path):
    write_files(tmp_path, {"a.txt": "Alpha."})
    usual = tmp_path / "usual"
    usual.write_text("")  # what open(path, "w") makes under this umask
    assert main(["chunk", str(tmp_path / "a.txt"), "--out", str(tmp_path / "out.jsonl")]) == 0
    assert stat.S_IMODE((tmp_path / "out.jsonl").stat().st_mode) == stat.S_IMODE(usual.stat().st_mode)


# -- defect 4: unreadable folders are reported ----------------------------------------------------------------------


def deny_listing(monkeypatch, locked: Path) -> None:
    """Listing ``locked`` fails as chmod 000 would for a user other than root (the tests may run as root)."""
    scandir = os.scandir

    def guarded(path="."):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", guarded)


def test_an_unreadable_subfolder_is_reported(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha.", "locked/b.txt": "Beta."})
    deny_listing(monkeypatch, folder / "locked")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(folder), "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"skipped {folder / 'locked'}: cannot list folder: Permission denied" in err
    assert "chunkwise: 1 skipped: cannot read" in err
    assert [r["text"] for r in records(out)] == ["Alpha."]


def test_an_unreadable_folder_given_directly_is_named(tmp_path, capsys, monkeypatch):
    write_files(tmp_path / "locked", {"b.txt": "Beta."})
    deny_listing(monkeypatch, tmp_path / "locked")
    assert main(["chunk", str(tmp_path / "locked")]) == 1
    err = capsys.readouterr().err
    assert f"skipped {tmp_path / 'locked'}: cannot list folder: Permission denied" in err
    assert "no input files found" not in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads a folder chmod 000")
def test_a_chmod_000_folder_is_reported(tmp_path, capsys):
    folder = tmp_path / "docs"
    write_files(folder, {"a.txt": "Alpha.", "locked/b.txt": "Beta."})
    (folder / "locked").chmod(0)
    try:
        assert main(["chunk", str(folder), "--out", str(tmp_path / "out.jsonl")]) == 1
        assert f"skipped {folder / 'locked'}: cannot list folder" in capsys.readouterr().err
    finally:
        (folder / "locked").chmod(0o755)


# -- defect 6 (CLI part): byte order marks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bom, encoding",
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
    ],
)
def test_a_bom_is_dropped_and_offsets_count_in_the_decoded_text(tmp_path, bom, encoding):
    text = "Héllo wörld. 中文句子。第二句。😀 end."
    (tmp_path / "a.txt").write_bytes(bom + text.encode(encoding))
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(tmp_path / "a.txt"), "--size", "8", "--out", str(out)]) == 0
    got = records(out)
    assert got[0]["start"] == 0 and got[0]["text"].startswith("Héllo") and got[-1]["text"].endswith("end.")
    assert all(text[r["start"] : r["end"]] == r["text"] for r in got)


def test_a_bom_does_not_hide_the_first_heading(tmp_path):
    (tmp_path / "guide.md").write_bytes(codecs.BOM_UTF8 + b"# Install guide\n\nFirst.\n\n## Linux\n\nSecond.\n")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(tmp_path / "guide.md"), "--strategy", "markdown", "--size", "40", "--out", str(out)]) == 0
    assert [r["metadata"]["title_path"] for r in records(out)] == [["Install guide"], ["Install guide", "Linux"]]


# -- defect 13 (CLI part): options named as typed, no traceback ----------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        (["--size", "0"], "chunkwise: error: --size must be >= 1, got 0"),
        (["--size", "-3"], "chunkwise: error: --size must be >= 1, got -3"),
        (["--size", "10", "--overlap", "10"], "chunkwise: error: --overlap must be < --size (0..=9), got 10"),
        (["--overlap", "-1"], "chunkwise: error: --overlap must be >= 0, got -1"),
    ],
)
def test_size_and_overlap_errors_name_the_options(tmp_path, capsys, options, message):
    write_files(tmp_path, {"a.txt": "Alpha."})
    assert main(["chunk", str(tmp_path / "a.txt"), *options]) == 2
    assert capsys.readouterr().err == message + "\n"


@pytest.mark.parametrize("option", ["--size", "--overlap"])
def test_a_huge_number_is_a_usage_error(tmp_path, capsys, option):
    write_files(tmp_path, {"a.txt": "Alpha."})
    with pytest.raises(SystemExit) as exit:
        main(["chunk", str(tmp_path / "a.txt"), option, "99999999999999999999"])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and f"error: argument {option}: 99999999999999999999 is out of range" in err


@pytest.mark.parametrize("command", ["bench", "eval"])
def test_python_m_chunkwise_reports_the_usage_errors_of_commands_in_modules_of_their_own(tmp_path, command):
    proc = run(command, str(tmp_path / "missing.csv"))
    assert proc.returncode == 2 and proc.stderr.startswith("chunkwise: error: ") and "Traceback" not in proc.stderr


@pytest.mark.parametrize("where, message", [("missing/out.jsonl", "does not exist"), ("folder", "is a folder")])
def test_a_bad_out_is_reported_before_any_work(tmp_path, capsys, monkeypatch, where, message):
    calls = []

    batches_call(monkeypatch, calls.append)
    write_files(tmp_path, {"a.txt": "Alpha."})
    (tmp_path / "folder").mkdir()
    assert main(["chunk", str(tmp_path / "a.txt"), "--out", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"chunkwise: error: --out {tmp_path / where}") and message in err and calls == []


def test_ctrl_c_before_any_output_exits_130(tmp_path, capsys, monkeypatch):
    def interrupt(payloads):
        raise KeyboardInterrupt

    batches_call(monkeypatch, interrupt)
    write_files(tmp_path, {"a.txt": "Alpha."})
    assert main_or_interrupt(["chunk", str(tmp_path / "a.txt"), "--out", str(tmp_path / "out.jsonl")]) == 130
    assert capsys.readouterr().err == "chunkwise: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]  # neither the output nor its temporary file


# -- the summary: one line per reason --------------------------------------------------------------------------------


def test_summary_counts_each_reason(tmp_path, capsys, monkeypatch, poisoned):
    folder = tmp_path / "docs"
    write_files(folder, {"good.txt": "Fine.", "bad1.bin": b"\xff", "bad2.bin": b"\xc3(", "poison.txt": "POISON."})
    (folder / "null").symlink_to(os.devnull)
    (folder / "dangling").symlink_to(tmp_path / "nowhere")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(folder), "--out", str(out), "--no-progress"]) == 1
    lines = capsys.readouterr().err.splitlines()
    summary = lines[lines.index(next(line for line in lines if "MB/s" in line)) :]
    assert summary[0].startswith("chunkwise: 1 document, 1 chunk, ")
    assert sorted(summary[1:]) == [
        "chunkwise: 1 failed: chunking error",
        "chunkwise: 1 skipped: cannot read",
        "chunkwise: 1 skipped: not a regular file",
        "chunkwise: 2 skipped: not UTF-8",
    ]
    assert [r["text"] for r in records(out)] == ["Fine."]


def test_no_input_files_found(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["chunk", str(tmp_path / "empty"), "--out", str(tmp_path / "out.jsonl")]) == 2
    assert capsys.readouterr().err == "chunkwise: no input files found\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_help_says_how_text_is_decoded():
    proc = run("chunk", "--help")
    assert proc.returncode == 0 and "BOM" in proc.stdout and "regular files only" in proc.stdout.lower()


def test_an_out_folder_that_cannot_be_written_is_a_usage_error(tmp_path, capsys, monkeypatch):
    def denied(**kwargs):
        raise PermissionError(13, "Permission denied")  # what a read-only folder gives a user other than root

    monkeypatch.setattr(outputs.tempfile, "mkstemp", denied)
    write_files(tmp_path, {"a.txt": "Alpha."})
    assert main(["chunk", str(tmp_path / "a.txt"), "--out", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err == f"chunkwise: error: --out {tmp_path / 'out.jsonl'}: cannot write in {tmp_path}: Permission denied\n"
