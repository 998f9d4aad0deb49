"""The site tier reads the static site `./build.sh test` has built (PE_SITE_DIR; else
tests/conftest.py's `site_dir` builds one), with no browser: its files, its wheels, its pages."""
