"""Positional Encoding Explorer: the app for `panel serve` (the static site's worker builds the
same page with pe_explorer.worker)."""

from pe_explorer.ui.page import serve_page

serve_page()
