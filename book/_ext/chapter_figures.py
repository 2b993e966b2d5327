"""Show, on a plain page, a figure that a chapter glued: the same run, not a copy drawn again.

myst-nb's ``{glue:figure}`` pastes only from the notebook it appears in, and
the book's introduction is a Markdown page. This directive reads the glued
output of an executed chapter (``book/chapters/NAME.ipynb``) and places it in
a captioned figure::

    :::{chapter-figure} chapters/value_change.ipynb::A_mechanism_figure
    :alt: What the reader would see, in words.
    :name: fig-intro-mechanism

    The caption.
    :::

The path is relative to the page. The image (SVG, or PNG when the chapter
glued one) is written under ``_build/.chapter_figures/`` and copied into the
site like any other image; the page is rebuilt whenever the chapter changes.
A missing notebook or key is a build error that names both.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

#: Glued output types this directive can show, in order of preference.
IMAGE_TYPES = {
    "application/papermill.record/image/svg+xml": ".svg",
    "application/papermill.record/image/png": ".png",
}


class ChapterFigure(SphinxDirective):
    """``{chapter-figure} path/to/chapter.ipynb::key`` with ``:alt:``, ``:name:`` and a caption."""

    required_arguments = 1
    has_content = True
    option_spec = {"alt": directives.unchanged_required, "name": directives.unchanged, "class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        target = self.arguments[0]
        if "::" not in target:
            raise self.error(f"chapter-figure needs 'NOTEBOOK.ipynb::KEY'; got {target!r}")
        relative, key = target.split("::", 1)
        page_dir = Path(self.env.doc2path(self.env.docname)).parent
        notebook = (page_dir / relative).resolve()
        if not notebook.is_file():
            raise self.error(f"chapter-figure: no notebook {relative!r} (looked for {notebook})")
        if "alt" not in self.options:
            raise self.error("chapter-figure needs :alt: text saying what the figure shows")
        self.env.note_dependency(str(notebook))
        data, suffix = _glued_image(notebook, key)
        if data is None:
            raise self.error(f"chapter-figure: {notebook.name} glues no image under {key!r}")
        digest = hashlib.sha256(data).hexdigest()[:12]
        out_dir = Path(self.env.srcdir) / "_build" / ".chapter_figures"
        out_dir.mkdir(parents=True, exist_ok=True)
        image_file = out_dir / f"{notebook.stem}-{key}-{digest}{suffix}"
        if not image_file.is_file():
            image_file.write_bytes(data)
        uri = "/" + image_file.relative_to(self.env.srcdir).as_posix()
        image = nodes.image(uri=uri, alt=self.options["alt"])
        # resolve the uri the way Sphinx's own image directive does
        image["candidates"] = {"*": image_file.relative_to(self.env.srcdir).as_posix()}
        figure = nodes.figure("", image, classes=["chapter-figure", *self.options.get("class", [])])
        self.set_source_info(figure)
        if self.content:
            holder = nodes.Element()
            self.state.nested_parse(self.content, self.content_offset, holder)
            first = holder[0]
            if not isinstance(first, nodes.paragraph):
                raise self.error("chapter-figure: the caption must be a paragraph")
            figure += nodes.caption(first.rawsource, "", *first.children)
        self.add_name(figure)
        return [figure]


def _glued_image(notebook: Path, key: str) -> tuple[bytes | None, str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") != key:
                continue
            data = output.get("data", {})
            for mime, suffix in IMAGE_TYPES.items():
                if mime in data:
                    value: Any = data[mime]
                    text = "".join(value) if isinstance(value, list) else value
                    if suffix == ".png":
                        return base64.b64decode(text), suffix
                    return text.encode("utf-8"), suffix
    return None, ""


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("chapter-figure", ChapterFigure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
