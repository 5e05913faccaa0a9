"""The consumer dbt project (`integration_tests/`): where it is, and copies of it for tests.

The project installs the package at the repository's root with `packages: - local: ../`.
`dbt deps` installs a local package as a link (`dbt_packages/cdc_lakehouse`); `link_package`
makes that link itself, so that a copy of the project builds without a `dbt deps` of its
own and every copy reads the one package.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from cdc_tools.local_spark import REPO_ROOT

CONSUMER_DIR = REPO_ROOT / "integration_tests"
PACKAGE_NAME = "cdc_lakehouse"
# What a copy of the consumer project needs (tests edit such copies: a contract, a macro)
PROJECT_FILES = ("dbt_project.yml", "packages.yml", "models", "macros", "tests")


def link_package(project: Path, package: Path = REPO_ROOT) -> Path:
    """`project`'s `dbt_packages/cdc_lakehouse`, a link to `package` (as `dbt deps` makes
    for a local package); returns it."""
    link = project / "dbt_packages" / PACKAGE_NAME
    if link.is_symlink() and link.resolve() == package.resolve():
        return link
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.exists():
        shutil.rmtree(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(package.resolve(), target_is_directory=True)
    return link


def copy_project(destination: Path, package: Path = REPO_ROOT) -> Path:
    """Copy the consumer project's files (PROJECT_FILES) to `destination`, its package the
    one at `package` (an absolute `local:` path and the link); returns `destination`."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        source = CONSUMER_DIR / name
        if source.is_dir():
            shutil.copytree(source, destination / name)
        elif source.exists():
            shutil.copy(source, destination / name)
    packages = {"packages": [{"local": str(package.resolve())}]}
    (destination / "packages.yml").write_text(yaml.safe_dump(packages))
    link_package(destination, package)
    return destination
