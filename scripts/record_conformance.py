"""Record BFCL v3 multi-turn conformance traces on the reference environments.

usage: python3 record_conformance.py REFERENCE BFCL_DIR CATEGORY [ID...] > CATEGORY.jsonl
       python3 record_conformance.py REFERENCE --cases CASES.jsonl > TRACES.jsonl

REFERENCE is a folder that holds the reference environments as the package
bfcl_eval.eval_checker.multi_turn_eval.func_source_code (gorilla commit
cd9429ccf3d4d04156affe883c495b3b047e6b64, berkeley-function-call-leaderboard;
empty __init__.py files suffice on the way down). BFCL_DIR holds the entries
(BFCL_v3_multi_turn_<category>.json and possible_answer/). The traces were
made with Python 3.11.7 and mpmath 1.3.0; newer Pythons change some float
sums.

With --cases, the calls come from CASES.jsonl instead of the benchmark:
one object per line with id, involved_classes, initial_config and turns
(one list of call strings per turn). They are run the same way and
written in the same record format, with category "cases". The port's
tests use this for calls the ground truth never makes, such as a float
where the reference declares an int.

Each entry gets fresh instances loaded from a deep copy of its
initial_config, with the long-context flag for the long_context category.
Its ground-truth calls run turn by turn as the official checker runs them,
and one JSON object is written per entry: id, category, involved_classes,
long_context, initial_state and, per turn, the calls, their result strings
and the public state of every class. This reproduces the benchmark's own
conformance traces byte for byte.
"""
import copy
import importlib
import json
import re
import sys

PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code."
MODULES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
STATELESS = {"MathAPI"}
BANNED = {"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"}


def public(value, fs):
    """A state value as the traces write it."""
    if isinstance(value, fs.File):
        return {"name": value.name, "content": value.content}
    if isinstance(value, fs.Directory):
        return {
            "name": value.name,
            "parent": value.parent.name if value.parent is not None else None,
            "contents": {k: public(x, fs) for k, x in value.contents.items()},
        }
    if isinstance(value, dict):
        return {str(k): public(x, fs) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [public(x, fs) for x in value]
    if isinstance(value, set):
        return [public(x, fs) for x in sorted(value)]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"no trace form for {type(value).__name__}")


def state(instance, fs):
    return {k: public(v, fs) for k, v in vars(instance).items() if not k.startswith("_")}


def result_string(result):
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        try:
            return json.dumps(result)
        except Exception:
            return str(result)
    return str(result)


def execute(call, instances, owner):
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(", call)
    name = m.group(1) if m else None
    if name in BANNED:
        return f"Error during execution: Function call {name} is not allowed."
    expr = call
    if name in owner:
        expr = f"instances[{owner[name]!r}]." + call.lstrip()
    try:
        return result_string(eval(expr, {"instances": instances}))
    except Exception as e:
        return f"Error during execution: {str(e)}"


def replay(entry, ground_truth, category, fs):
    long_context = category == "long_context"
    instances, owner = {}, {}
    for c in entry["involved_classes"]:
        instance = getattr(importlib.import_module(PACKAGE + MODULES[c]), c)()
        if c not in STATELESS:
            config = copy.deepcopy(entry.get("initial_config", {}).get(c, {}))
            instance._load_scenario(config, long_context=long_context)
        instances[c] = instance
        for n in dir(instance):
            if not n.startswith("_") and callable(getattr(instance, n)):
                owner[n] = c
    record = {
        "id": entry["id"],
        "category": category,
        "involved_classes": entry["involved_classes"],
        "long_context": long_context,
        "initial_state": {c: state(i, fs) for c, i in instances.items()},
        "turns": [],
    }
    for turn, calls in enumerate(ground_truth):
        results = [execute(c, instances, owner) for c in calls]
        record["turns"].append({"turn": turn, "calls": calls, "results": results,
                                "state": {c: state(i, fs) for c, i in instances.items()}})
    return record


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--cases":
        sys.path.insert(0, sys.argv[1])
        fs = importlib.import_module(PACKAGE + "gorilla_file_system")
        for case in lines(sys.argv[3]):
            record = replay(case, case["turns"], "cases", fs)
            print(json.dumps(record, ensure_ascii=False))
        return
    reference, data, category = sys.argv[1:4]
    ids = set(sys.argv[4:])
    sys.path.insert(0, reference)
    fs = importlib.import_module(PACKAGE + "gorilla_file_system")
    answers = {a["id"]: a["ground_truth"]
               for a in lines(f"{data}/possible_answer/BFCL_v3_multi_turn_{category}.json")}
    for entry in lines(f"{data}/BFCL_v3_multi_turn_{category}.json"):
        if not ids or entry["id"] in ids:
            record = replay(entry, answers[entry["id"]], category, fs)
            print(json.dumps(record, ensure_ascii=False))


if __name__ == "__main__":
    main()
