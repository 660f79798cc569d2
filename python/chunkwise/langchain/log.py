"""LangChain's logger: LangChain logs oversized chunks on it; so do we, so existing log filters keep working."""

import logging

logger = logging.getLogger("langchain_text_splitters.base")
