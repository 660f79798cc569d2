//! The core's chunk record (`chunkwise_core::record::COLUMNS`) as Python reads it: `_core.columns()`.

use chunkwise_core::record::{self, COLUMNS};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The record's columns, in its order: one dict per column (see `chunkwise.record`).
#[pyfunction]
pub(crate) fn columns(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for c in COLUMNS {
        let d = PyDict::new(py);
        d.set_item("name", c.name)?;
        d.set_item("type", c.kind.as_str())?;
        d.set_item("nullable", c.nullable)?;
        d.set_item("role", c.role.as_str())?;
        d.set_item(
            "sources",
            c.sources.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        )?;
        let written_for: Vec<&str> = record::chunkers().filter(|n| c.written_for(n)).collect();
        let chunkers: Vec<&str> = written_for
            .iter()
            .copied()
            .filter(|name| c.set_by(name))
            .collect();
        d.set_item("chunkers", chunkers)?;
        d.set_item("written_for", written_for)?;
        d.set_item("when", c.when)?;
        d.set_item("formats", c.formats.names().collect::<Vec<_>>())?;
        d.set_item("arrow_at", c.arrow_at)?;
        d.set_item("export", c.export)?;
        d.set_item("embedded", c.embedded)?;
        d.set_item("inherited", c.inherited)?;
        out.append(d)?;
    }
    Ok(out)
}
