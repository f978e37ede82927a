#!/usr/bin/env bash
# The run's records, for the action's artifact: the report, the result,
# the run receipt (receipt.json, when the run wrote one), the iterations'
# log, the run's diff and the transcripts (each iteration's agent output,
# transcript, check outputs and diff), from the .architect folder of the
# workspace or, for a worktree run, of the worktree.
#
#   artifact.sh check    validates the inputs (before the run: a mistake
#                        costs no tokens)
#   artifact.sh collect  writes the step outputs found, name, retention
#                        and paths (one per line) for actions/upload-artifact
set -uo pipefail

name=${INPUT_ARTIFACT_NAME:-}
if [[ -z $name ]]; then name="architect-${GITHUB_JOB:-run}"; fi
days=${INPUT_ARTIFACT_RETENTION_DAYS:-}
bad=false
if [[ -n $days ]] && { [[ ! $days =~ ^[0-9]+$ ]] || ((10#$days < 1 || 10#$days > 90)); }; then bad=true; fi
if [[ $bad == true ]]; then
	echo "::error title=architect: artifact-retention-days::\"$(printf '%s' "$days" | tr -d '\r\n%:')\" is not a number of days from 1 to 90"
	echo "architect: hint: give artifact-retention-days a whole number of days from 1 to 90, or leave it out for the repository's default"
	exit 2
fi
if [[ ${1:-} == check ]]; then exit 0; fi

dir=${ARCHITECT_WORKTREE_PATH:-.}/.architect
paths=()
for f in report.html result.json receipt.json iterations.log run.patch transcripts; do
	if [[ -e $dir/$f ]]; then paths+=("$(cd "$dir" && pwd)/$f"); fi
done
found=false
if ((${#paths[@]} > 0)); then found=true; fi
delim="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
{
	echo "found=$found"
	echo "name=$name"
	echo "retention=$days"
	echo "paths<<$delim"
	printf '%s\n' "${paths[@]}"
	echo "$delim"
} >>"$GITHUB_OUTPUT"
if [[ $found == false ]]; then
	echo "architect: no records in $dir to upload (the run did not start?)"
else
	echo "architect: uploading ${#paths[@]} records from $dir as the artifact $name"
fi
