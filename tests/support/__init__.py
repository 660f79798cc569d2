"""What the tests share: the corpus in tests/data, real code and tokenizers made offline, the independent references
(a Markdown reader on markdown-it-py, LangChain's strategies) and the checks more than one test file runs."""
