"""Peer throughput benchmarks (pytest-benchmark).

Not collected by a plain ``pytest`` run (name does not match test_*.py);
run explicitly, e.g.

    CHUNKWISE_CORPUS_LIMIT=1000000 pytest benches/bench_peers.py

Each case reports MB/s in the "MB/s" extra_info column.
"""

import pytest

from peers import MARKDOWN_PEERS, PEERS

SIZES = (512, 2048)


def _bench(benchmark, mbps, factory, size, doc):
    split = factory(size)  # may skip if the peer is not installed
    chunks = benchmark.pedantic(split, args=(doc.text,), rounds=3, iterations=1)
    assert chunks and max(map(len, chunks)) <= size
    mbps(benchmark, doc.nbytes)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("peer", PEERS)
def test_peer(benchmark, mbps, doc, peer, size):
    benchmark.group = f"{doc.name} @{size}"
    _bench(benchmark, mbps, PEERS[peer], size, doc)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("peer", MARKDOWN_PEERS)
def test_markdown_peer(benchmark, mbps, md_doc, peer, size):
    benchmark.group = f"{md_doc.name} markdown @{size}"
    _bench(benchmark, mbps, MARKDOWN_PEERS[peer], size, md_doc)
