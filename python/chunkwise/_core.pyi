"""Type stubs of the Rust extension module ``chunkwise._core``."""

from os import PathLike
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union, final

__all__ = ["Changes", "ChunkingError", "Chunk", "ChunkStream", "JsonLines", "LangchainSplitter", "ParquetRows", "Splitter", "Tokenizer", "__version__", "_panic_on", "_purge_delay", "_release_memory", "_splitter_from_config", "chunk_arrow", "code_language", "code_languages", "columns", "detect", "edge_lines", "level_ids", "line_keys", "render_elements", "tiktoken_encodings", "tiktoken_windows"]

__version__: str

class ChunkingError(ValueError): ...

@final
class Chunk:
    """A piece of a source text: ``text == source[start:end]`` always (``str`` indices)."""

    @property
    def text(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def index(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def token_count(self) -> Optional[int]: ...
    @property
    def level(self) -> str: ...
    @property
    def metadata(self) -> Dict[str, Any]: ...
    @property
    def context(self) -> str: ...
    @property
    def context_sep(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def prev_id(self) -> Optional[str]: ...
    @property
    def next_id(self) -> Optional[str]: ...
    @property
    def embedding_text(self) -> str: ...
    def __new__(
        cls,
        text: str,
        start: int,
        end: int,
        index: Optional[int] = None,
        size: Optional[int] = None,
        level: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        context: Optional[str] = None,
        id: Optional[str] = None,
        prev_id: Optional[str] = None,
        next_id: Optional[str] = None,
        token_count: Optional[int] = None,
        context_sep: Optional[str] = None,
        embedding_text: Optional[str] = None,
    ) -> "Chunk": ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ChunkStream:
    def __new__(
        cls, splitter: Splitter, metadata: Optional[Dict[str, Any]] = None, paged: bool = False
    ) -> ChunkStream: ...
    def push(self, piece: Union[str, bytes]) -> List[Chunk]: ...
    def finish(self) -> List[Chunk]: ...
    def push_lines(
        self, piece: Union[str, bytes], lines: "JsonLines", source: str, strategy: Optional[Tuple[str, str]] = None
    ) -> Tuple[bytes, int]: ...
    def finish_lines(
        self, lines: "JsonLines", source: str, strategy: Optional[Tuple[str, str]] = None
    ) -> Tuple[bytes, int]: ...
    def push_rows(self, piece: Union[str, bytes]) -> Tuple[bytes, int]: ...
    def finish_rows(self) -> Tuple[bytes, int]: ...

@final
class Changes:
    """The chunks a run has written against a previous run's ids (``JsonLines.changes``, ``ParquetRows.changes``)."""

    @property
    def added(self) -> int: ...
    @property
    def kept(self) -> int: ...
    def written(self, id: str) -> bool: ...

@final
class JsonLines:
    """How the command line writes chunks as JSON lines: the fields of a line, and a previous run's ids."""

    def __new__(cls, fields: Sequence[str], previous: Optional[Iterable[str]] = None) -> JsonLines: ...
    @property
    def fields(self) -> List[str]: ...
    @property
    def changes(self) -> Changes: ...
    def write_batch(
        self,
        splitter: Splitter,
        texts: Sequence[Union[str, bytes]],
        sources: Sequence[str],
        file: Any,
        paged: bool = False,
        strategies: Optional[Sequence[Optional[Tuple[str, str]]]] = None,
    ) -> List[Union[int, BaseException]]: ...

@final
class ParquetRows:
    """How the command line writes chunks as Parquet rows: the columns, the encoder, and a previous run's ids."""

    def __new__(
        cls,
        file: Any,
        fields: Sequence[str],
        previous: Optional[Iterable[str]] = None,
        structural: bool = False,
        tokens: bool = False,
        compression: str = "snappy",
        code: bool = False,
        strategies: bool = False,
    ) -> ParquetRows: ...
    @property
    def columns(self) -> List[str]: ...
    @property
    def changes(self) -> Changes: ...
    def write_batch(
        self,
        splitter: Splitter,
        texts: Sequence[Union[str, bytes]],
        sources: Sequence[str],
        paged: bool = False,
        strategies: Optional[Sequence[Optional[Tuple[str, str]]]] = None,
    ) -> List[Union[int, BaseException]]: ...
    def write_spooled(
        self, splitter: Splitter, spool: Any, source: str, strategy: Optional[Tuple[str, str]] = None
    ) -> int: ...
    def close(self) -> None: ...

@final
class Splitter:
    def __new__(
        cls,
        strategy: str,
        size: Optional[int],
        overlap: Optional[int] = None,
        min_size: Optional[int] = None,
        trim: bool = True,
        unit: str = "chars",
        separators: Optional[List[str]] = None,
        separators_regex: bool = False,
        keep_separator: str = "end",
        snap: Optional[int] = None,
        tokenizer: Optional["Tokenizer"] = None,
        merge_sections: bool = True,
        size_includes_context: bool = True,
        format: Optional[str] = None,
        rows_per_chunk: Optional[int] = None,
        max_chars: Union[int, str, None] = "auto",
        restart: Optional[str] = None,
        mode: str = "percentile",
        threshold: Optional[float] = None,
        window: Optional[int] = None,
        target: Optional[int] = None,
        min_unit: Optional[int] = None,
        language: str = "auto",
        balance: bool = False,
    ) -> "Splitter": ...
    def chunk(self, text: str, metadata: Optional[Dict[str, Any]] = None, paged: bool = False) -> List[Chunk]: ...
    def chunk_batch(
        self, texts: Iterable[str], metadatas: Optional[Iterable[Optional[Dict[str, Any]]]] = None
    ) -> List[List[Chunk]]: ...
    def spans(self, text: str) -> bytearray: ...
    def spans_batch(self, texts: Iterable[str]) -> Tuple[bytearray, bytes]: ...
    def semantic_units(self, text: str) -> bytearray: ...
    def semantic_chunk(
        self, text: str, vectors: bytes, dim: int, metadata: Optional[Dict[str, Any]] = None, paged: bool = False
    ) -> List[Chunk]: ...
    def semantic_spans(self, text: str, vectors: bytes, dim: int) -> bytearray: ...
    def size_of(self, text: str) -> int: ...
    def is_structural(self) -> bool: ...
    def config(self) -> Dict[str, Any]: ...

@final
class Tokenizer:
    """A tokenizer that measures chunk sizes in tokens, exactly, counted in Rust."""

    @staticmethod
    def from_file(
        path: Union[str, "PathLike[str]"], add_special_tokens: bool = False, window: Optional[int] = None
    ) -> "Tokenizer": ...
    @staticmethod
    def from_str(json: str, add_special_tokens: bool = False, window: Optional[int] = None) -> "Tokenizer": ...
    @staticmethod
    def for_model(path: Union[str, "PathLike[str]"]) -> "Tokenizer": ...
    @staticmethod
    def from_huggingface(tokenizer: Any, add_special_tokens: bool = False) -> "Tokenizer": ...
    @staticmethod
    def tiktoken(encoding: str = "cl100k_base") -> "Tokenizer": ...
    @staticmethod
    def from_callable(func: Callable[[str], int], name: Optional[str] = None) -> "Tokenizer": ...
    def count(self, text: str) -> int: ...
    def token_spans(self, text: str) -> List[Tuple[int, int]]: ...
    def __call__(self, text: str) -> int: ...
    @property
    def add_special_tokens(self) -> bool: ...
    @property
    def piece_rule(self) -> str: ...
    @property
    def max_tokens(self) -> Optional[int]: ...
    @property
    def window(self) -> Optional[int]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class LangchainSplitter:
    """LangChain's recursive or character splitter, computed in Rust (the core of ``chunkwise.langchain``)."""

    def __new__(
        cls,
        separators: List[str],
        is_regex: bool,
        keep: str,
        chunk_size: int,
        chunk_overlap: int,
        strip_whitespace: bool,
        character_join: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        allowed_special: List[str] = ...,
        disallowed_special: List[str] = ...,
    ) -> "LangchainSplitter": ...
    def split(
        self,
        text: str,
        length_function: Optional[Callable[[str], int]] = None,
        start_index: bool = False,
        offsets: bool = False,
        matcher: Optional[Any] = None,
    ) -> Optional[Tuple[List[str], Optional[List[int]], Optional[List[Tuple[int, int]]], List[int]]]: ...
    def external_separators(self) -> List[Tuple[str, str]]: ...
    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]: ...

def tiktoken_encodings() -> Dict[str, List[str]]:
    """The built-in tiktoken encodings: name -> its special tokens (sorted)."""

def tiktoken_windows(
    encoding: str,
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    allowed_special: List[str],
    disallowed_special: List[str] = ...,
) -> Optional[List[str]]: ...
def render_elements(
    splitter: Splitter,
    elements: Sequence[Tuple[str, str, int, Optional[List[List[str]]], Optional[str], str]],
    size: int,
) -> Tuple[str, List[Optional[Tuple[int, int]]], List[Tuple[int, List[Tuple[Tuple[int, int], List[int]]]]]]: ...
def code_language(path: str, text: Optional[str] = None) -> Optional[str]: ...
def code_languages() -> List[str]: ...
def columns() -> List[Dict[str, Any]]:
    """The chunk record's columns, one dict per column, in the core's order (read through ``chunkwise.record``)."""
def level_ids(text: str, chunks: List[str], metadata: Optional[Dict[str, Any]], level: int) -> List[str]:
    """The ids of one level of HierarchicalChunker's chunks of ``text``, given by their texts."""
def line_keys(text: str) -> List[int]:
    """The key of each line of ``text`` that carries a letter or digit, in order: a stable 64-bit hash of the line
    case folded, its runs of digits as one ``0`` and of whitespace as one space (for boilerplate)."""
def edge_lines(
    text: str, edge: int, page_edge: int
) -> Tuple[List[Tuple[int, int]], List[int], List[bool], List[bool], List[bool]]:
    """The lines of ``text`` that carry a letter or digit and are among its first or last ``edge`` such lines, or
    among the first or last ``page_edge`` of a page (pages end at form feeds; 0: no pages), in order, by column: their
    ``(start, end)`` (the line break left out), keys (as :func:`line_keys`), whether each is at an edge of the text,
    of its page, and whether the next one listed is the text's next line that carries something. Lines are read as
    ``str.splitlines`` reads them; without pages only the head and foot of the text are read."""
def detect(
    text: Union[str, bytes], source: Union[str, PathLike[str], None] = None
) -> Tuple[str, str, Optional[str], Optional[str]]:
    """What kind of document ``text`` is (named ``source`` when known): ``(kind, reason, table format, language)``,
    the kind one of "markdown", "code", "table", "clause", "prose"."""
def _splitter_from_config(config: Dict[str, Any]) -> Splitter:
    """A splitter from its ``config()``: how a pickled splitter is restored."""

def _panic_on(marker: Optional[str]) -> None:
    """Test hook, not API: while armed, splitting a text that holds ``marker`` panics inside the core call."""
def _purge_delay(milliseconds: int) -> int:
    """Sets how long the core allocator keeps freed memory before giving it back to the OS (0: at once); returns the
    setting before (ingestion sets 0 for its run)."""
def _release_memory() -> None:
    """Gives the core allocator's freed memory back to the OS now (the command line calls it after each batch)."""
def chunk_arrow(
    splitter: Splitter,
    texts: Any,
    doc_ids: Optional[Any] = None,
    paged: bool = False,
    id_key: str = ...,
    large: bool = False,
    one: bool = False,
) -> Any:
    """The chunks of an Arrow string array or stream, as a PyCapsule holding an Arrow C stream of record batches
    (see chunkwise.arrow.chunk_arrow); ``large``: text columns ``large_string`` whatever the input's; ``one``: a
    single record batch."""
