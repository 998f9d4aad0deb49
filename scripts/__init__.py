"""The site's build, run as `python -m scripts.build_site OUT` (./build.sh build): its steps are
this package's modules, which import each other relatively. Build time only: the site's wheel
never holds them."""
