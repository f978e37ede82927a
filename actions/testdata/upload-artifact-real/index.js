// Uploads the files and folders named in the path input (one per line,
// folders whole; hidden files only with include-hidden-files) as one
// artifact, through @actions/artifact, as actions/upload-artifact does.
const fs = require('fs');
const path = require('path');
const core = require('@actions/core');
const { DefaultArtifactClient } = require('@actions/artifact');

function walk(p, hidden, out) {
  const st = fs.statSync(p);
  if (st.isFile()) { out.push(p); return; }
  for (const e of fs.readdirSync(p)) {
    if (!hidden && e.startsWith('.')) continue;
    walk(path.join(p, e), hidden, out);
  }
}

function commonDir(files) {
  let dir = path.dirname(files[0]);
  while (!files.every((f) => f.startsWith(dir + path.sep))) dir = path.dirname(dir);
  return dir;
}

async function main() {
  const name = core.getInput('name');
  const hidden = core.getInput('include-hidden-files') === 'true';
  const days = core.getInput('retention-days');
  const lines = core.getInput('path').split('\n').map((l) => l.trim()).filter(Boolean);
  const files = [];
  for (const l of lines) {
    const p = path.resolve(process.env.GITHUB_WORKSPACE || '.', l);
    if (!fs.existsSync(p)) continue;
    if (!hidden && p.split(path.sep).some((s) => s.startsWith('.') && s !== '.' && s !== '..')) {
      core.warning(`${l} is hidden and include-hidden-files is false: left out`);
      continue;
    }
    walk(p, hidden, files);
  }
  console.log(`upload (real): name=${name} retention-days=${days} files=${files.length}`);
  if (files.length === 0) {
    if (core.getInput('if-no-files-found') === 'error') core.setFailed('no files found');
    else core.warning('no files found: nothing uploaded');
    return;
  }
  const opts = {};
  if (days) opts.retentionDays = parseInt(days, 10);
  const { id, size } = await new DefaultArtifactClient().uploadArtifact(name, files, commonDir(files), opts);
  console.log(`upload (real): artifact ${id}, ${size} bytes`);
  core.setOutput('artifact-id', id);
  const s = process.env;
  core.setOutput('artifact-url', `${s.GITHUB_SERVER_URL}/${s.GITHUB_REPOSITORY}/actions/runs/${s.GITHUB_RUN_ID}/artifacts/${id}`);
}

main().catch((e) => core.setFailed(e.message));
