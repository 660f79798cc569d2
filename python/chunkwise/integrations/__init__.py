"""Adapters of the native chunkers to other frameworks. Each module imports its framework, which chunkwise itself
does not need: ``chunkwise.integrations.langchain`` (langchain-text-splitters) and
``chunkwise.integrations.llama_index`` (llama-index-core)."""
