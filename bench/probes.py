"""Measurements bench/run.py takes inside a fresh interpreter.

Nothing is imported at the top beyond sys and time, so each import the probe
times is paid exactly as a user's `hipport` process pays it.

    python bench/probes.py breakdown FILE        stage by stage cold start, one file
    python bench/probes.py peer SRC OUT IGNORES  torch's hipify over SRC into OUT
"""
import sys
import time

clock = time.perf_counter


class Steps:
    """Wall and CPU seconds of each named step (CPU is what a busy machine distorts least)."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self._wall = self._cpu = 0.0

    def start(self) -> None:
        self._wall, self._cpu = clock(), time.process_time()

    def stop(self, name: str, minus: list[float] | None = None) -> list[float]:
        wall, cpu = clock() - self._wall, time.process_time() - self._cpu
        if minus:
            wall, cpu = max(0.0, wall - minus[0]), max(0.0, cpu - minus[1])
        self.times[name] = [wall, cpu]
        return self.times[name]


def breakdown(path: str) -> dict:
    """Time each stage of porting one file, from a cold interpreter, in process."""
    steps = Steps()
    notes = []
    steps.start()
    import hipport.cli  # noqa: F401  click and the command definitions
    steps.stop("import CLI (click + hipport.cli)")
    steps.start()
    from hipport import api
    from hipport.emit.report import dumps
    from hipport.options import Options
    steps.stop("import convert's modules (api, engine, report)")
    steps.start()
    from hipport.ruleset.loader import load_rules

    rules = load_rules()
    steps.stop("rule loading (compiled cache)")
    import os
    from pathlib import Path

    source = Path(path).read_bytes()
    options = Options()
    from hipport.parse.scan import scan
    from hipport.engine import port as engine

    steps.start()
    candidates = scan(source, rules.is_interesting)
    scan_time = steps.stop("scan (one regex pass for candidates)")
    try:
        from hipport.parse.treesitter import TreeSitterBackend, _parser

        steps.start()
        _parser()
        steps.stop("tree-sitter grammar load")
        steps.start()
        parsed = TreeSitterBackend().parse(source, candidates, rules.markers)
        steps.stop("parse + classify candidates")

        class AlreadyParsed:  # hands the engine the tree parsed above
            name = "cached"

            def parse(self, *_args):
                return parsed

        steps.start()
        result = engine.port_source(source, rules, options, path=path, backend=AlreadyParsed())
        steps.stop("engine (rules -> edits, findings)", minus=scan_time)
        notes.append("port_source repeats the scan; the engine step has the scan's time taken off")
    except Exception as exc:  # the internals moved: time the public call instead
        notes.append(f"no per-stage split ({type(exc).__name__}: {exc}); parse and engine timed together")
        steps.start()
        result = api.port_file(Path(path), rules, options)
        steps.stop("parse + engine (together)")
    steps.start()
    report = api.report_for([result], rules, options, {"seconds": 0.0})
    text = dumps(report)
    with open(os.devnull, "wb") as sink:
        sink.write(result.output)
        sink.write(text.encode())
    steps.stop("emit (output bytes + JSON report)")
    return {"steps": steps.times, "notes": notes}


def peer(src: str, out: str, ignores_file: str) -> dict:
    """Run torch.utils.hipify over src; the timings go to OUT/../peer-result.json."""
    import io
    import json
    from contextlib import redirect_stderr, redirect_stdout
    from pathlib import Path

    t = clock()
    import torch  # noqa: F401
    import_torch = clock() - t
    t = clock()
    import torch.utils.hipify.hipify_python as hipify_python
    import_hipify = clock() - t
    ignores = json.loads(Path(ignores_file).read_text())
    sink = io.StringIO()
    t = clock()
    with redirect_stdout(sink), redirect_stderr(sink):
        hipify_python.hipify(project_directory=src, output_directory=out, show_progress=False, ignores=ignores)
    call = clock() - t
    result = {"import_torch_s": import_torch, "import_hipify_s": import_hipify, "hipify_s": call}
    (Path(out).parent / "peer-result.json").write_text(json.dumps(result))
    return result


if __name__ == "__main__":
    import json

    command, *args = sys.argv[1:]
    result = {"breakdown": breakdown, "peer": peer}[command](*args)
    print(json.dumps(result))
