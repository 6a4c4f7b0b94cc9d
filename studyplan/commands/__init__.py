"""Sub-commands beyond `plan`: each module defines `register(app: typer.Typer) -> None`.

Keep module-level imports light (typer, stdlib): `studyplan --help` imports every module here.
"""
