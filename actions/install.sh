#!/usr/bin/env bash
# Puts architect on PATH for the action. When the action is used at a
# release tag (uses: OWNER/architect@v1.2.3), the release binary of that
# tag is downloaded and checked against the release's checksums.txt by the
# repository's install.sh: no Go needed, and a download that does not
# match is refused. Any other ref (a branch, a commit, a major tag such as
# v1) builds architect from the action's source with the runner's Go
# (build.sh). Writes the binary's path to the step output "bin" and puts
# its folder on PATH for later steps.
#
# The ref is github.action_ref, or else the last folder of the action's
# path (the runner keeps actions in _actions/OWNER/REPO/REF): composite
# actions do not always see github.action_ref (actions/runner#2473).
set -euo pipefail

src=${ARCHITECT_SRC:?ARCHITECT_SRC is not set}
src=$(cd "$src" && pwd -P)
ref=${ARCHITECT_REF:-}
[[ -n $ref ]] || ref=$(basename "$src")
repo=${ARCHITECT_REPOSITORY:-}
if [[ -z $repo ]]; then
	parent=$(dirname "$src")
	repo=$(basename "$(dirname "$parent")")/$(basename "$parent")
	[[ $(basename "$(dirname "$(dirname "$parent")")") == _actions ]] || repo=architect-dev/architect
fi

if ! [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]]; then
	echo "architect: $ref is not a release tag (vX.Y.Z): building from source"
	exec bash "$src/actions/build.sh"
fi

dir=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/architect/release-$ref/$(uname -s)-$(uname -m)
bin=$dir/architect
if [[ -x $bin ]]; then
	echo "architect: using the release binary $bin (checked when it was downloaded)"
else
	url=${ARCHITECT_DOWNLOAD_URL:-https://github.com/$repo/releases}
	echo "architect: downloading release $ref from $url"
	# $dir first on PATH, as it is for the next steps (GITHUB_PATH below).
	if ! PATH=$dir:$PATH ARCHITECT_VERSION=$ref ARCHITECT_INSTALL_DIR=$dir ARCHITECT_DOWNLOAD_URL=$url sh "$src/install.sh"; then
		echo "::error title=architect could not be installed::the release binary of $ref could not be downloaded or did not match its checksum (see the log above). Nothing was installed."
		exit 1
	fi
fi
echo "bin=$bin" >>"$GITHUB_OUTPUT"
echo "$dir" >>"$GITHUB_PATH"
