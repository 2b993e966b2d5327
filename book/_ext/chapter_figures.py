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

Every figure also has a phone's layout: a chapter stores each figure's narrow
SVG beside the wide one (:data:`cvlib.presentation.narrow_figures.NARROW_MIME`).
This extension puts that drawing into the page as a second image right after
the wide one, the wide classed ``cvfig-wide`` and the narrow ``cvfig-narrow``;
``cvbook.css`` shows the one that fits the screen. It does so for the figures
of executed chapters (matched to their output by the SHA-256 myst-nb names an
image file by) and for this directive's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from cvlib.presentation.narrow_figures import NARROW_MIME

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
        narrow = _glued_narrow(notebook, key)
        if narrow is not None:
            figure += _narrow_twin(image, narrow, out_dir, Path(self.env.srcdir))
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


def _glued_narrow(notebook: Path, key: str) -> str | None:
    """The narrow SVG a chapter glued beside its figure under ``key``, if it did."""
    for output in _outputs(notebook):
        if output.get("metadata", {}).get("scrapbook", {}).get("name") == key:
            value = output.get("data", {}).get(f"application/papermill.record/{NARROW_MIME}")
            if value is not None:
                return "".join(value) if isinstance(value, list) else str(value)
    return None


def _outputs(notebook: Path) -> list[dict[str, Any]]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [output for cell in cells for output in cell.get("outputs", [])]


def _file_bytes(text: str) -> bytes:
    """An SVG's bytes as myst-nb writes them (this platform's line separator), so its hash names the same file."""
    return os.linesep.join(text.splitlines()).encode("utf-8")


def _narrow_twin(wide: nodes.image, svg: str, folder: Path, srcdir: Path) -> nodes.image:
    """The narrow image shown instead of ``wide`` on a small screen, written into ``folder``; ``wide`` is classed for it."""
    data = _file_bytes(svg)
    path = folder / f"{hashlib.sha256(data).hexdigest()}.svg"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    wide["classes"] = [*wide.get("classes", []), "cvfig-wide"]
    twin = nodes.image(uri="/" + os.path.relpath(path, srcdir).replace(os.sep, "/"),
                       alt=wide.get("alt", ""), classes=["cvfig-narrow"])
    twin["candidates"] = {"*": os.path.relpath(path, srcdir).replace(os.sep, "/")}
    return twin


def add_narrow_figures(app: Sphinx, doctree: nodes.document) -> None:
    """After an executed chapter is read: each figure's narrow drawing placed right after its wide one."""
    source = Path(app.env.doc2path(app.env.docname))
    if source.suffix != ".ipynb":
        return
    narrow: dict[str, str] = {}
    for output in _outputs(source):
        data = output.get("data", {})
        wide, phone = data.get("image/svg+xml"), data.get(NARROW_MIME)
        if wide is None or phone is None:
            continue
        wide_text = "".join(wide) if isinstance(wide, list) else str(wide)
        narrow[hashlib.sha256(_file_bytes(wide_text)).hexdigest()] = "".join(phone) if isinstance(phone, list) else phone
    if not narrow:
        return
    srcdir = Path(app.srcdir)
    for image in list(doctree.findall(nodes.image)):
        uri = str(image.get("uri", ""))
        svg = narrow.get(Path(uri).stem) if uri.endswith(".svg") and "cvfig-wide" not in image["classes"] else None
        if svg is None:
            continue
        folder = (srcdir / uri.lstrip("/")).parent
        twin = _narrow_twin(image, svg, folder, srcdir)
        image.parent.insert(image.parent.index(image) + 1, twin)


def hide_narrow_outputs(app: Sphinx, docname: str, source: list[str]) -> None:
    """Before myst-nb reads an executed chapter: its narrow drawings taken out (this extension places them).

    myst-nb renders every output type it knows and warns about the others; the
    narrow SVG is placed by :func:`add_narrow_figures` instead, from the
    notebook file itself, so the text myst-nb parses does not carry it.
    """
    if not str(app.env.doc2path(docname)).endswith(".ipynb") or NARROW_MIME not in source[0]:
        return
    notebook = json.loads(source[0])
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime in (NARROW_MIME, f"application/papermill.record/{NARROW_MIME}"):
                data.pop(mime, None)
    source[0] = json.dumps(notebook, ensure_ascii=False)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("chapter-figure", ChapterFigure)
    app.connect("source-read", hide_narrow_outputs)
    # before Sphinx's image collector (priority 500), so the narrow images are copied into the site too
    app.connect("doctree-read", add_narrow_figures, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
