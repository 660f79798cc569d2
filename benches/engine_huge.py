"""One huge document through an engine adapter (arrow_huge_peak.py ``--via ray|daft|spark|spark-sql``): the job,
and the peak memory of the process tree it runs in.

The document is written to a Parquet file of one row (uncompressed, plain encoding: ``--dictionary`` for pyarrow's
default, a dictionary page, which costs the reader 3x the value), the engine reads it, chunks it with the adapter
and writes the chunks to Parquet, as a job at scale would (nothing is collected to the driver). The engine is started
and warmed on a small document first (workers started, chunkwise imported in them), then the tree of processes
under this one (the driver, and the engine's: Ray's raylet and workers, Spark's JVM and Python workers) is sampled
every 100 ms from /proc: the sum of its PSS (shared pages, such as Ray's object store, counted once) and each
process's RSS, whose VmHWM is reset before the job (a peak between two samples is still seen in a process alive at
the end). After the job the engine is stopped and the chunks read back are compared with ``chunker.spans()`` on the
same text.

* ``tree_peak_increase``: the largest sum of the tree's PSS during the job minus the sum before it.
* ``worker``, ``worker_peak_increase``: the process whose RSS rose most (a process started during the job counts
  from zero) and its rise.
* ``top``: the four processes whose RSS rose most, with their rises.
* ``output_bytes``: ``chunk_arrow``'s output for the same text, run afterwards in the driver: the one copy of the
  chunks any job holds at some point; ``over`` = ``tree_peak_increase`` - ``output_bytes`` (the input is read
  inside the job, so it is in ``over``).
* ``completed``, ``error``: whether the job finished, else the engine's error (its last lines).
* ``equal``: the chunks' (start, end), sorted, equal ``chunker.spans()`` on the text.

``--own``: the engine's own share, the same job with a batch function that returns one number per batch (no
chunking; the Spark DataFrame path, ``mapInArrow``): what the engine holds around any batch function on that row.

A tree above ``--limit-gb`` GB (PSS) is stopped: its processes (all started by this one) are killed, and the result
says ``aborted``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rollup(pid: int) -> Dict[str, int]:
    """Rss and Pss of ``pid`` in bytes (0 when it is gone)."""
    out = {"Rss": 0, "Pss": 0}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                key = line.split(":")[0]
                if key in out:
                    out[key] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out


def _hwm(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _tree() -> Dict[int, str]:
    """The processes under this one (and this one): pid -> a short name."""
    import psutil

    me = psutil.Process()
    out = {me.pid: "driver"}
    for p in me.children(recursive=True):
        try:
            cmd = p.cmdline()
            name = " ".join(os.path.basename(c) for c in cmd[:3])[:60] if cmd else p.name()
        except psutil.Error:
            continue
        out[p.pid] = name
    return out


class TreeSampler:
    """Samples the tree every ``every`` seconds in a thread, from :meth:`start` to :meth:`stop`."""

    def __init__(self, limit: float, every: float = 0.1) -> None:
        self.limit = limit
        self.every = every
        self.names: Dict[int, str] = {}
        self.base_rss: Dict[int, int] = {}
        self.peak_rss: Dict[int, int] = {}
        self.base_sum = 0
        self.peak_sum = 0
        self.aborted = False
        self._stop = threading.Event()

    def start(self) -> None:
        self.names = _tree()
        for pid in self.names:
            r = _rollup(pid)
            self.base_rss[pid] = r["Rss"]
            self.base_sum += r["Pss"]
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                pass
        self.peak_sum = self.base_sum
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        names = _tree()
        total = 0
        for pid, name in names.items():
            r = _rollup(pid)
            total += r["Pss"]
            if r["Rss"] > self.peak_rss.get(pid, 0) or pid not in self.names:
                self.peak_rss[pid] = r["Rss"]
                self.names[pid] = name  # what it was doing at its peak (Ray renames its workers by task)
        self.peak_sum = max(self.peak_sum, total)
        if total > self.limit and not self.aborted:
            self.aborted = True
            for pid in names:
                if pid != os.getpid():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.every)

    def stop(self) -> Dict[str, Any]:
        self._sample()
        for pid in self.names:  # a peak between samples, in a process still alive
            self.peak_rss[pid] = max(self.peak_rss.get(pid, 0), _hwm(pid))
        self._stop.set()
        self._thread.join()
        rises = {pid: self.peak_rss.get(pid, 0) - self.base_rss.get(pid, 0) for pid in self.names}
        worker = max((p for p in rises if p != os.getpid()), key=rises.get, default=os.getpid())
        return {
            "tree_peak_increase": self.peak_sum - self.base_sum,
            "tree_before": self.base_sum,
            "processes": len(self.names),
            "driver_peak_increase": rises[os.getpid()],
            "worker": self.names[worker],
            "worker_peak_increase": rises[worker],
            "aborted": self.aborted,
            "top": [[self.names[p], rises[p]] for p in sorted(rises, key=rises.get, reverse=True)[:4]],
        }


# --- the engines: each a context manager giving a job(input_path, output_dir) -------------------------------


def _one_number(pa: Any) -> Any:
    """The batch function of ``--own``: one row per batch, its number of rows (no chunking)."""
    def fn(batch: Any) -> Any:
        return pa.table({"n": pa.array([batch.num_rows], pa.int64())})

    return fn


def _ray(chunker: Any, own: bool) -> Any:
    import pyarrow as pa
    import ray

    from chunkwise.ray import chunk_dataset
    from support.engine_docs import local_ray

    local_ray()

    def job(src: str, dst: str) -> None:
        ds = ray.data.read_parquet(src)
        if own:
            ds = ds.map_batches(_one_number(pa), batch_format="pyarrow", zero_copy_batch=True)
        else:
            ds = chunk_dataset(ds, chunker)
        ds.write_parquet(dst)

    return job, ray.shutdown


def _daft(chunker: Any, own: bool) -> Any:
    import daft
    import pyarrow as pa

    from chunkwise.daft import chunks

    daft.set_runner_native(num_threads=2)

    def job(src: str, dst: str) -> None:
        df = daft.read_parquet(src)
        if own:
            def zeros(texts: Any) -> Any:
                return pa.array([0] * len(texts), pa.int64())

            fn = daft.func.batch(return_dtype=daft.DataType.int64())(zeros)
            df.select(fn(daft.col("text")).alias("n")).write_parquet(dst)
        else:
            df.select(chunks(daft.col("text"), chunker).alias("chunks")).write_parquet(dst)

    return job, lambda: None


def _spark(chunker: Any, sql: bool, own: bool, conf: Dict[str, str]) -> Any:
    import pyarrow as pa

    from chunkwise.spark import chunk_dataframe, register
    from support.engine_docs import local_spark

    spark = local_spark("chunkwise-huge", conf, master="local[1]")
    if sql:
        register(spark, chunker)

    def job(src: str, dst: str) -> None:
        spark.read.parquet(src).createOrReplaceTempView("docs")
        if own:
            one = _one_number(pa)

            def numbers(batches: Any) -> Any:
                for b in batches:
                    yield from one(b).to_batches()

            out = spark.table("docs").mapInArrow(numbers, "n long")
        elif sql:
            out = spark.sql("SELECT * FROM chunkwise_chunk(TABLE(docs), 'text')")
        else:
            out = chunk_dataframe(spark.table("docs"), chunker)
        out.write.mode("overwrite").parquet(dst)

    return job, spark.stop


def _starts_ends(pa: Any, dst: str, via: str) -> Any:
    import pyarrow.parquet as pq

    if via == "daft":
        lists = pq.read_table(dst, columns=["chunks"]).column("chunks").combine_chunks().flatten()
        table = pa.table({"start": lists.field("start"), "end": lists.field("end")})
    else:
        table = pq.read_table(dst, columns=["start", "end"])
    table = table.sort_by("start")
    return table.column("start").to_numpy(), table.column("end").to_numpy()


def run(args: Any, document: Callable[[int], bytearray], output_bytes: Callable[[Any], int]) -> Dict[str, Any]:
    """The job on ``args.mb`` MB: the figures listed in this module's docstring."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import chunkwise
    from chunkwise.arrow import chunk_arrow

    tokenizer = chunkwise.Tokenizer.tiktoken("cl100k_base") if args.unit == "tokens" else None
    chunker = chunkwise.RecursiveChunker(512, tokenizer=tokenizer)
    conf = dict(kv.split("=", 1) for kv in args.conf)
    folder = Path(tempfile.mkdtemp(prefix="chunkwise-huge-", dir=args.tmp))
    result: Dict[str, Any] = {"mb": args.mb, "unit": args.unit, "via": args.via, "own": args.own,
                              "dictionary": args.dictionary, "conf": conf}
    try:
        small, huge = str(folder / "small.parquet"), str(folder / "huge.parquet")
        pq.write_table(pa.table({"text": ["warm up. " * 200, "\u4e2d\u6587\u3002" * 200]}), small)
        data = document(int(args.mb * 1e6))
        result["input_bytes"] = len(data)
        offsets = pa.array([0, len(data)], pa.int32()).buffers()[1]
        array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
        # Plain: a dictionary page (pyarrow's default) costs the reader 3x the value (see benches/README.md).
        pq.write_table(pa.table({"text": array}), huge, compression="none", use_dictionary=args.dictionary)
        del array, data  # the engine reads the file: the driver holds no copy during the job

        if args.via == "ray":
            job, stop = _ray(chunker, args.own)
        elif args.via == "daft":
            job, stop = _daft(chunker, args.own)
        else:
            job, stop = _spark(chunker, args.via == "spark-sql", args.own, conf)
        try:
            job(small, str(folder / "warm"))
            import gc

            gc.collect()
            sampler = TreeSampler(args.limit_gb * 1e9)
            sampler.start()
            t0 = time.perf_counter()
            try:
                job(huge, str(folder / "out"))
                result["completed"] = True
            except BaseException as e:  # the engine's error is the result
                result["completed"] = False
                lines = [ln for ln in "".join(traceback.format_exception_only(type(e), e)).splitlines() if ln.strip()]
                result["error"] = "\n".join(lines[:3] + (["..."] if len(lines) > 6 else []) + lines[-3:])
            result["seconds"] = round(time.perf_counter() - t0, 1)
            result.update(sampler.stop())
        finally:
            try:
                if not result.get("aborted"):
                    stop()
            except Exception as e:  # an engine whose process died (Spark's JVM after an OutOfMemoryError)
                result["stop_error"] = f"{type(e).__name__}: {e}"[:200]

        data = document(int(args.mb * 1e6))
        offsets = pa.array([0, len(data)], pa.int32()).buffers()[1]
        array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
        out = chunk_arrow(array, chunker)
        result["output_bytes"] = output_bytes(out)
        del out, array
        if result["completed"] and not args.own:
            starts, ends = _starts_ends(pa, str(folder / "out"), args.via)
            text = data.decode("utf-8")
            del data
            spans = chunker.spans(text)
            result["chunks"] = len(starts)
            result["spans"] = len(spans)
            result["equal"] = bool(len(spans) == len(starts) and (starts == spans[:, 0]).all()
                                   and (ends == spans[:, 1]).all())
        result["over"] = result["tree_peak_increase"] - result["output_bytes"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result
