"""Print the field tables of core/load/apischema.py for the API types of the given kinds,
read from the Go type definitions of k8s.io/api and apimachinery's meta/v1.

Each table maps a JSON field name to its type in the notation core/load/apischema.py
describes; inline (embedded) structs are flattened into their parent. The types are read
from the release's own ``types.go`` files (v1.36: microshift release-4.23). Run from the
repository root and the output is STORED_EXTRA of core/load/apischema.py (what STRUCTS lacks):

    python tools/gen_apischema.py core.Node storage.StorageClass resource.ResourceSlice
"""

from __future__ import annotations

import re
import subprocess
import sys

MICROSHIFT = "/work/.mirror/openshift+microshift/repo"
REF = "release-4.23"
STAGING = "deps/github.com/openshift/kubernetes/staging/src/k8s.io/"
# Our package name of each Go package, and where its types are defined.
PACKAGES = {
    "core": "api/core/v1/types.go", "apps": "api/apps/v1/types.go", "batch": "api/batch/v1/types.go",
    "storage": "api/storage/v1/types.go", "policy": "api/policy/v1/types.go",
    "scheduling": "api/scheduling/v1/types.go", "resource": "api/resource/v1/types.go",
    "events": "api/events/v1/types.go", "meta": "apimachinery/pkg/apis/meta/v1/types.go",
    "node": "api/node/v1/types.go", "autoscaling": "api/autoscaling/v2/types.go",
}
# Go import names as the types.go files write them.
IMPORTS = {"v1": "core", "metav1": "meta", "corev1": "core", "apiv1": "core"}
# Types decoded from any JSON value, or not checked here (times, raw JSON).
OPAQUE = {"meta.Time", "meta.MicroTime", "meta.Duration", "runtime.RawExtension", "meta.FieldsV1",
          "apiextensionsv1.JSON", "runtime.Object"}
SPECIAL = {"resource.Quantity": "quantity", "intstr.IntOrString": "intstr", "types.UID": "string:types.UID"}

_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.M | re.S)
_NAMED = re.compile(r"^type (\w+) ([^\s{][^\n]*?)\s*$", re.M)
_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?([\w.*\[\]]+)\s+`([^`]*)`", re.M)
_JSON_TAG = re.compile(r'json:"([^"]*)"')


def _source(pkg: str) -> str:
    return subprocess.run(["git", "--git-dir", MICROSHIFT, "show",
                           f"{REF}:{STAGING}{PACKAGES[pkg]}"], capture_output=True, text=True, check=True).stdout


class Types:
    def __init__(self) -> None:
        self.structs: dict[str, list[tuple[str | None, str, str]]] = {}
        self.named: dict[str, str] = {}
        for pkg in PACKAGES:
            text = re.sub(r"//[^\n]*", "", _source(pkg))
            for m in _STRUCT.finditer(text):
                self.structs[f"{pkg}.{m.group(1)}"] = [
                    (f.group(1), f.group(2), f.group(3)) for f in _FIELD.finditer(m.group(2))]
            for m in _NAMED.finditer(text):
                self.named[f"{pkg}.{m.group(1)}"] = m.group(2)

    def qualify(self, go: str, pkg: str) -> str:
        if "." in go:
            prefix, name = go.split(".", 1)
            return f"{IMPORTS.get(prefix, prefix)}.{name}"
        return f"{pkg}.{go}"

    def type_of(self, go: str, pkg: str) -> str:
        go = go.lstrip("*")
        if go.startswith("[]"):
            return "string:[]uint8" if go == "[]byte" else "[]" + self.type_of(go[2:], pkg)
        if go.startswith("map["):
            key, inner = go[4:go.index("]")], go[go.index("]") + 1:]
            value = self.type_of(inner, pkg)
            if key == "string":
                return "map:" + value
            # A map keyed by a named type: Go names the map type with both.
            return f"map:{value}@map[{self.go_name(key, pkg)}]{self.go_name(inner, pkg)}"
        if go in ("string", "bool", "int32", "int64", "float64"):
            return go
        if go == "int":
            return "int64"
        q = self.qualify(go, pkg)
        if q in SPECIAL:
            return SPECIAL[q]
        if q in OPAQUE:
            return "any"
        if q in self.structs:
            return "S:" + q
        under = self.named.get(q)
        if under is None:
            raise SystemExit(f"unknown type {q}")
        base = self.type_of(under, q.split(".", 1)[0])
        go_name = "v1." + q.split(".", 1)[1]
        if base.startswith("map:"):
            return f"{base.partition('@')[0]}@{go_name}"
        if base in ("string", "bool", "int32", "int64", "float64"):
            return f"{base}:{go_name}"
        return base

    def go_name(self, go: str, pkg: str) -> str:
        """How Go's reflection prints the type (``v1.Name`` for the API packages')."""
        go = go.lstrip("*")
        if go in ("string", "bool", "int32", "int64", "float64", "int"):
            return go
        name = self.qualify(go, pkg).split(".", 1)[1]
        return f"{'resource' if name == 'Quantity' else 'v1'}.{name}"

    def fields(self, name: str) -> dict[str, str]:
        pkg = name.split(".", 1)[0]
        out: dict[str, str] = {}
        for field, go, tag in self.structs[name]:
            tagged = _JSON_TAG.search(tag)
            json_name = tagged.group(1) if tagged else ""
            key = json_name.split(",", 1)[0]
            if json_name == "-" or key == "-":
                continue
            if not key and (field is None or ",inline" in json_name):
                out.update(self.fields(self.qualify(go.lstrip("*"), pkg)))
                continue
            out[key or field] = self.type_of(go, pkg)
        return out

    def reachable(self, roots: list[str]) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in out:
                continue
            out[name] = self.fields(name)
            for t in out[name].values():
                todo.extend(re.findall(r"S:([\w.]+)", t))
        return dict(sorted(out.items()))


def main() -> None:
    """The tables (or the fields of a table) the existing STRUCTS lack: STORED_EXTRA."""
    from kschedx.core.load.apischema import STRUCTS

    tables = {}
    for name, fields in Types().reachable(sys.argv[1:]).items():
        extra = {k: t for k, t in fields.items() if k not in STRUCTS.get(name, {})}
        if extra:
            tables[name] = extra
    for name, fields in tables.items():
        print(f'    "{name}": {{')
        line = "       "
        for k, t in fields.items():
            item = f' "{k}": "{t}",'
            if len(line) + len(item) > 118:
                print(line)
                line = "       "
            line += item
        print(line)
        print("    },")


if __name__ == "__main__":
    main()
