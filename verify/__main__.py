from verify.app.cli import run

run()
