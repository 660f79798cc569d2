"""The separators LangChain uses per language (interface data: a test checks them against LangChain's own)."""

from __future__ import annotations

from typing import List

def _lines(*keywords: str) -> List[str]:
    """Separators before a line starting with each keyword, then blank lines, lines, spaces and chars."""
    return ["\n" + k for k in keywords] + ["\n\n", "\n", " ", ""]


_C_LIKE = _lines("class ", "void ", "int ", "float ", "double ", "if ", "for ", "while ", "switch ", "case ")
_VB_DECL = r"\n(?!End\s)(?:Public|Private|Friend|Global|Static)\s+?"

_SEPARATORS = {
    "c": _C_LIKE,
    "cpp": _C_LIKE,
    "go": _lines("func ", "var ", "const ", "type ", "if ", "for ", "switch ", "case "),
    "java": _lines(
        "class ", "public ", "protected ", "private ", "static ", "if ", "for ", "while ", "switch ", "case "
    ),
    "kotlin": _lines(
        "class ", "public ", "protected ", "private ", "internal ", "companion ", "fun ", "val ", "var ",
        "if ", "for ", "while ", "when ", "else ",
    ),
    "js": _lines(
        "function ", "const ", "let ", "var ", "class ", "if ", "for ", "while ", "switch ", "case ", "default "
    ),
    "ts": _lines(
        "enum ", "interface ", "namespace ", "type ", "class ", "function ", "const ", "let ", "var ", "if ",
        "for ", "while ", "switch ", "case ", "default ",
    ),
    "php": _lines("function ", "class ", "if ", "foreach ", "while ", "do ", "switch ", "case "),
    "proto": _lines("message ", "service ", "enum ", "option ", "import ", "syntax "),
    "python": _lines("class ", "def ", "\tdef "),
    "r": _lines(
        "function ", r"setClass\(", r"setMethod\(", r"setGeneric\(", "if ", "else ", "for ", "while ",
        "repeat ", r"library\(", r"require\(",
    ),
    "rst": ["\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n", "\n\n", "\n", " ", ""],
    "ruby": _lines("def ", "class ", "if ", "unless ", "while ", "for ", "do ", "begin ", "rescue "),
    "rust": _lines("fn ", "const ", "let ", "if ", "while ", "for ", "loop ", "match "),
    "scala": _lines("class ", "object ", "def ", "val ", "var ", "if ", "for ", "while ", "match ", "case "),
    "swift": _lines("func ", "class ", "struct ", "enum ", "if ", "for ", "while ", "do ", "switch ", "case "),
    "markdown": ["\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", "\n\n", "\n", " ", ""],
    "latex": [
        "\n\\\\" + k
        for k in (
            "chapter{", "section{", "subsection{", "subsubsection{", "begin{enumerate}", "begin{itemize}",
            "begin{description}", "begin{list}", "begin{quote}", "begin{quotation}", "begin{verse}",
            "begin{verbatim}", "begin{align}",
        )
    ]
    + ["$$", "$", " ", ""],
    "html": [
        "<" + tag
        for tag in (
            "body", "div", "p", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "span", "table", "tr", "td", "th",
            "ul", "ol", "header", "footer", "nav", "head", "style", "script", "meta", "title",
        )
    ]
    + [""],
    "sol": _lines(
        "pragma ", "using ", "contract ", "interface ", "library ", "constructor ", "type ", "function ", "event ",
        "modifier ", "error ", "struct ", "enum ", "if ", "for ", "while ", "do while ", "assembly ",
    ),
    "csharp": _lines(
        "interface ", "enum ", "delegate ", "event ", "class ", "abstract ", "public ", "protected ", "private ",
        "static ", "return ", "if ", "continue ", "for ", "foreach ", "while ", "switch ", "break ", "case ",
        "else ", "try ", "throw ", "finally ", "catch ",
    ),
    "cobol": ["\n" + k for k in (
        "IDENTIFICATION DIVISION.", "ENVIRONMENT DIVISION.", "DATA DIVISION.", "PROCEDURE DIVISION.",
        "WORKING-STORAGE SECTION.", "LINKAGE SECTION.", "FILE SECTION.", "INPUT-OUTPUT SECTION.", "OPEN ",
        "CLOSE ", "READ ", "WRITE ", "IF ", "ELSE ", "MOVE ", "PERFORM ", "UNTIL ", "VARYING ", "ACCEPT ",
        "DISPLAY ", "STOP RUN.",
    )] + ["\n", " ", ""],
    "lua": _lines("local ", "function ", "if ", "for ", "while ", "repeat "),
    "haskell": _lines(
        "main :: ", "main = ", "let ", "in ", "do ", "where ", ":: ", "= ", "data ", "newtype ", "type ",
        "module ", "import ", "qualified ", "import qualified ", "class ", "instance ", "case ", "| ", "= {", ", ",
    ),
    "elixir": _lines(
        "def ", "defp ", "defmodule ", "defprotocol ", "defmacro ", "defmacrop ", "if ", "unless ", "case ",
        "cond ", "with ", "for ", "do ",
    ),
    "powershell": _lines(
        "function ", "param ", "if ", "foreach ", "for ", "while ", "switch ", "class ", "try ", "catch ",
        "finally ",
    ),
    "visualbasic6": [
        _VB_DECL + r"Sub\s+",
        _VB_DECL + r"Function\s+",
        _VB_DECL + r"Property\s+(?:Get|Let|Set)\s+",
        _VB_DECL + r"Type\s+",
        _VB_DECL + r"Enum\s+",
        r"\n(?!End\s)If\s+",
        r"\nElseIf\s+",
        r"\nElse\s+",
        r"\nSelect\s+Case\s+",
        r"\nCase\s+",
        r"\nFor\s+",
        r"\nDo\s+",
        r"\nWhile\s+",
        r"\nWith\s+",
        r"\n\n",
        r"\n",
        " ",
        "",
    ],
}
