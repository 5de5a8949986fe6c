#!/usr/bin/env bash
# The Unity package's tests, outside Unity: compiles Core, Ops and Tests with Mono's `mcs`
# (C# 7.2) and runs them with NUnit 2.6's console runner. The end-to-end tests run the real
# `codiva` (CODIVA_BIN, default target/debug/codiva), the real `claude`
# (CODIVA_TEST_CLAUDE, default tools/agent-clis) and the mock model server
# (CODIVA_MOCK_BIN, default target/debug/codiva-mock). Editor/ needs UnityEditor: it is compiled
# (into a throwaway dll) against Tests/UnityStandIns~, our declarations of the Unity API it calls,
# so a typo or a type error in it fails here; that checks our code against our reading of the API,
# not against Unity.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

if ! command -v mcs >/dev/null 2>&1 || ! command -v nunit-console >/dev/null 2>&1 \
  || [ ! -f /usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll ]; then
  echo "installing mono-devel and nunit-console (Debian's packages)…" >&2
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >&2 && apt-get install -y -qq mono-devel nunit-console libnunit-cil-dev >&2
  else
    sudo apt-get update -qq >&2 && sudo apt-get install -y -qq mono-devel nunit-console libnunit-cil-dev >&2
  fi
fi

if [ -z "${CODIVA_BIN:-}" ] || [ -z "${CODIVA_MOCK_BIN:-}" ]; then
  cargo build -q -p codiva -p codiva-testkit --bin codiva --bin codiva-mock
fi

# Unity ignores a file of a git-installed package that has no .meta: every one must have it.
# Names starting with `.` or ending with `~` are not imported by Unity at all (Tests/UnityStandIns~):
# they have none.
missing=$(cd "$here" && find . -mindepth 1 \( -name '.*' -o -name '*~' -o -name '*.meta' \) -prune -o -print \
  | while read -r p; do [ -f "$p.meta" ] || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "error: no .meta file for (run clients/unity/make-meta.sh):" >&2
  echo "$missing" >&2
  exit 1
fi

out="$root/target/unity-tests"
mkdir -p "$out"
nunit=/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll
mcs_flags=(-langversion:7.2 -nologo -warnaserror+ -debug -r:System.dll -r:System.Core.dll)
mcs "${mcs_flags[@]}" -target:library -out:"$out/Codiva.Core.dll" $(find "$here/Core" -name '*.cs' | sort)
mcs "${mcs_flags[@]}" -target:library -out:"$out/Codiva.Ops.dll" -r:"$out/Codiva.Core.dll" $(find "$here/Ops" -name '*.cs' | sort)
# Editor/ against the stand-ins (in an assembly of their own, as Unity's API is to Editor/);
# the result is thrown away.
check="$out/editor-check"
mkdir -p "$check"
mcs "${mcs_flags[@]}" -target:library -out:"$check/UnityStandIns.dll" $(find "$here/Tests/UnityStandIns~" -name '*.cs' | sort)
mcs "${mcs_flags[@]}" -target:library -out:"$check/Codiva.Editor.dll" -r:"$out/Codiva.Core.dll" -r:"$out/Codiva.Ops.dll" \
  -r:"$check/UnityStandIns.dll" $(find "$here/Editor" -name '*.cs' | sort)
mcs "${mcs_flags[@]}" -target:library -out:"$out/Codiva.Tests.dll" -r:"$out/Codiva.Core.dll" -r:"$out/Codiva.Ops.dll" \
  -r:"$nunit" -r:System.Net.Http.dll $(find "$here/Tests" -name '*~' -prune -o -name '*.cs' -print | sort)
cp "$nunit" "$out/"

export CODIVA_REPO_ROOT="$root"
export CODIVA_TEST_CLAUDE="${CODIVA_TEST_CLAUDE:-$root/tools/agent-clis/node_modules/.bin/claude}"
cd "$out"
nunit-console -nologo -labels -noshadow -result="$out/TestResult.xml" Codiva.Tests.dll "$@"
