//! Python bindings of chunkwise: argument conversion, GIL handling and result packing. No chunking logic here.

// pyo3 hands a function its arguments as owned values, and `map_err` hands over errors by value.
#![allow(clippy::needless_pass_by_value)]

use pyo3::prelude::*;

mod alloc;
mod arrow;
mod batch;
mod build;
mod chunk;
mod detect;
mod elements;
mod errors;
mod interrupt;
mod jsonl;
mod langchain;
mod lines;
mod metadata;
mod parquet;
mod record;
mod splitter;
mod stream;
mod text;
mod tokenizer;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    alloc::configure();
    alloc::tree_sitter_on_mimalloc();
    chunkwise_core::panic::install_hook();
    m.add_function(wrap_pyfunction!(errors::_panic_on, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_release_memory, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_purge_delay, m)?)?;
    m.add_function(wrap_pyfunction!(splitter::_splitter_from_config, m)?)?;
    m.add_function(wrap_pyfunction!(splitter::code_language, m)?)?;
    m.add_function(wrap_pyfunction!(splitter::code_languages, m)?)?;
    m.add_function(wrap_pyfunction!(detect::detect, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::chunk_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(elements::render_elements, m)?)?;
    m.add_function(wrap_pyfunction!(record::columns, m)?)?;
    m.add_function(wrap_pyfunction!(chunk::level_ids, m)?)?;
    m.add_function(wrap_pyfunction!(lines::line_keys, m)?)?;
    m.add_function(wrap_pyfunction!(lines::edge_lines, m)?)?;
    m.add_class::<splitter::PySplitter>()?;
    m.add_class::<stream::PyChunkStream>()?;
    m.add_class::<jsonl::JsonLines>()?;
    m.add_class::<jsonl::Changes>()?;
    m.add_class::<parquet::ParquetRows>()?;
    m.add_class::<chunk::Chunk>()?;
    m.add_class::<tokenizer::PyTokenizer>()?;
    m.add_class::<langchain::PyLangchainSplitter>()?;
    m.add_function(wrap_pyfunction!(langchain::tiktoken_windows, m)?)?;
    m.add_function(wrap_pyfunction!(langchain::tiktoken_encodings, m)?)?;
    m.add("ChunkingError", m.py().get_type::<errors::ChunkingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
