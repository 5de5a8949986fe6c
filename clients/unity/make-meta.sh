#!/usr/bin/env bash
# Writes the .meta file Unity needs next to every file and folder of the package (a package
# installed from git is read-only to Unity, which ignores assets without one). The GUID is derived
# from the path, so running this again changes nothing; run-tests.sh fails when one is missing.
# Names starting with `.` or ending with `~` get none: Unity does not import them (Tests/UnityStandIns~).
set -euo pipefail
cd "$(dirname "$0")"
find . -mindepth 1 \( -name '.*' -o -name '*~' -o -name '*.meta' \) -prune -o -print | sort | while read -r path; do
  path="${path#./}"
  meta="$path.meta"
  [ -f "$meta" ] && continue
  guid=$(printf 'codiva-unity/%s' "$path" | md5sum | cut -c1-32)
  if [ -d "$path" ]; then
    printf 'fileFormatVersion: 2\nguid: %s\nfolderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n' "$guid" > "$meta"
    continue
  fi
  case "$path" in
    *.cs) printf 'fileFormatVersion: 2\nguid: %s\nMonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n' "$guid" ;;
    *.asmdef) printf 'fileFormatVersion: 2\nguid: %s\nAssemblyDefinitionImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n' "$guid" ;;
    *) printf 'fileFormatVersion: 2\nguid: %s\nTextScriptImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n' "$guid" ;;
  esac > "$meta"
done
