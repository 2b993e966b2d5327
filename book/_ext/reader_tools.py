"""The reader's tools of a published research book, switched on by one setting: ``repository.url``.

``_config.yml`` names the book's public repository once::

    repository:
      url: https://github.com/OWNER/cvbook
      branch: main

When that URL is set, every page gets the theme's repository, "open an issue"
and "edit this page" buttons, and every executed chapter gets launch buttons
for Binder and Colab, which open the chapter's notebook from that repository.
When it is empty (the repository is not public yet), none of them is shown:
a button that leads nowhere is worse than none. Jupyter Book passes
``repository.url`` to the theme as ``html_theme_options["repository_url"]``;
this extension reads it when the configuration is ready and turns the buttons
on, keeping any launch service the configuration already names.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

#: Public launch services used when the configuration names none.
BINDER = "https://mybinder.org"
COLAB = "https://colab.research.google.com"
#: Theme options that show the repository, issues and edit-this-page buttons.
BUTTONS = ("use_repository_button", "use_issues_button", "use_edit_page_button")


def reader_tools(theme_options: dict[str, Any]) -> dict[str, Any]:
    """The theme options with the reader's tools on when ``repository_url`` is set, off when it is not."""
    options = dict(theme_options)
    url = str(options.get("repository_url") or "").strip()
    launch = dict(options.get("launch_buttons") or {})
    for button in BUTTONS:
        options[button] = bool(url)
    if url:
        launch["binderhub_url"] = launch.get("binderhub_url") or BINDER
        launch["colab_url"] = launch.get("colab_url") or COLAB
    else:
        launch["binderhub_url"] = ""
        launch["colab_url"] = ""
    options["launch_buttons"] = launch
    return options


def _configure(app: Sphinx, config: Config) -> None:
    config.html_theme_options = reader_tools(config.html_theme_options or {})


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
