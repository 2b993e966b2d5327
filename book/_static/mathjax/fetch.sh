#!/usr/bin/env bash
# Vendors MathJax so the book renders maths offline (a page that loads a CDN
# script fails the browser tests, and readers may have no network).
# Source: the npm registry's mathjax@3.2.2 package (Apache-2.0, see LICENSE).
# We keep one self-contained file: es5/tex-svg.js (SVG output embeds its glyphs,
# so no font files are needed). Re-run from the repository root to refresh it;
# the checksum below is checked.
set -euo pipefail
cd "$(dirname "$0")"
VERSION=3.2.2
SHA256=$(cat tex-svg.js.sha256 | cut -d' ' -f1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "mathjax@$VERSION" >/dev/null && tar xzf "mathjax-$VERSION.tgz")
cp "$tmp/package/es5/tex-svg.js" tex-svg.js.new
cp "$tmp/package/LICENSE" LICENSE
echo "$SHA256  tex-svg.js.new" | sha256sum -c -
mv tex-svg.js.new tex-svg.js
