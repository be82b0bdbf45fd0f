import argparse
import sys
from pathlib import Path

from .build import build
from .problems import BuildFailed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tickwork build", description=__doc__)
    parser.add_argument("project", nargs="?", default=".", help="the directory of wrangler.toml")
    args = parser.parse_args(argv)
    try:
        built = build(Path(args.project))
    except BuildFailed as failed:
        for problem in failed.problems:
            print(problem, file=sys.stderr)
        print(f"build failed: {len(failed.problems)} problem(s)", file=sys.stderr)
        return 1
    names = ", ".join(spec.name for spec in built.schedules) or "none"
    print(f"built {len(built.schedules)} schedule(s) ({names}) into {built.manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
