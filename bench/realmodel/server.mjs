// server.mjs: serves a GGUF model as an OpenAI-compatible Chat Completions
// endpoint on 127.0.0.1, with node-llama-cpp's prebuilt CPU build (no
// compiler, nothing downloaded at run time).
//
//   node server.mjs --model FILE.gguf [--port 8088] [--threads 2] [--ctx 8192] [--log usage.jsonl]
//
// POST /v1/chat/completions takes {messages, max_tokens, temperature,
// top_p, top_k, seed, stream} (a last assistant message is continued) and answers a chat.completion (or, with
// stream:true, chat.completion.chunk events and "data: [DONE]") with a
// usage of prompt_tokens and completion_tokens. GET /v1/models and
// GET /health answer too. Requests are served one at a time (one context
// sequence: two CPU cores gain nothing from more); each one starts from an
// empty context, so no answer depends on an earlier request.
//
// The prompt is rendered with the model's own chat template, read from the
// GGUF (tokenizer.chat_template) and run by node-llama-cpp's Jinja
// interpreter, exactly as the model's authors wrote it (for Qwen2.5 that
// adds its default system message when none is given).
//
// Every answered request appends one JSON line to --log: the time, the
// X-Bench-Tag header the client sent, prompt and completion tokens, the
// seconds the model took and why it stopped. The bench reads its figures
// from there.
import http from "node:http";
import fs from "node:fs";
import {getLlama, LlamaChat, JinjaTemplateChatWrapper} from "node-llama-cpp";

function flag(name, def) {
	const i = process.argv.indexOf("--" + name);
	return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const modelPath = flag("model");
if (!modelPath) {
	console.error("usage: node server.mjs --model FILE.gguf [--port N] [--threads N] [--ctx N] [--log FILE]");
	process.exit(2);
}
const port = Number(flag("port", "8088"));
const threads = Number(flag("threads", "2"));
const ctxSize = Number(flag("ctx", "8192"));
const logPath = flag("log", "");

const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath});
const context = await model.createContext({contextSize: ctxSize, threads, sequences: 1});
const sequence = context.getSequence();
const template = model.fileInfo.metadata?.tokenizer?.chat_template;
if (typeof template !== "string" || template === "") {
	console.error("server: the model has no chat template (tokenizer.chat_template)");
	process.exit(1);
}
const chatWrapper = new JinjaTemplateChatWrapper({template});
const modelName = String(model.fileInfo.metadata?.general?.name ?? "model");

// history turns OpenAI messages into node-llama-cpp's chat history, ending
// with the model response the generation fills: empty, or, when the last
// message is the assistant's, that message, which the model continues (a
// prefilled answer, as EvalPlus starts chat models' answers with
// "Below is a Python script …\n```python\n").
function history(messages) {
	const out = [];
	for (const m of messages ?? []) {
		const text = typeof m.content === "string" ? m.content
			: Array.isArray(m.content) ? m.content.map((p) => p?.text ?? "").join("") : "";
		if (m.role === "system" || m.role === "developer") out.push({type: "system", text});
		else if (m.role === "assistant") out.push({type: "model", response: [text]});
		else out.push({type: "user", text});
	}
	if (out.at(-1)?.type !== "model") out.push({type: "model", response: []});
	return out;
}

let queue = Promise.resolve();

// generate runs one request, after the ones before it.
function generate(req, onText) {
	const run = queue.then(async () => {
		const chatHistory = history(req.messages);
		const {contextText} = chatWrapper.generateContextState({chatHistory});
		const promptTokens = contextText.tokenize(model.tokenizer).length;
		if (promptTokens >= ctxSize) {
			const err = new Error(`This model's maximum context length is ${ctxSize} tokens. However, your messages resulted in ${promptTokens} tokens.`);
			err.status = 400;
			err.code = "context_length_exceeded";
			throw err;
		}
		await sequence.clearHistory();
		const chat = new LlamaChat({contextSequence: sequence, chatWrapper, autoDisposeSequence: false});
		let completionTokens = 0;
		const t0 = process.hrtime.bigint();
		try {
			const res = await chat.generateResponse(chatHistory, {
				maxTokens: Math.min(Number(req.max_tokens ?? req.max_completion_tokens ?? 1024), ctxSize - promptTokens),
				temperature: Number(req.temperature ?? 0),
				topP: req.top_p == null ? undefined : Number(req.top_p),
				topK: req.top_k == null ? undefined : Number(req.top_k),
				seed: req.seed == null ? undefined : Number(req.seed),
				onToken: (tokens) => { completionTokens += tokens.length; },
				onTextChunk: onText,
			});
			const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
			// res.response is the continuation only: the prefill is the client's.
			return {text: res.response, stop: res.metadata.stopReason, promptTokens, completionTokens, seconds};
		} finally {
			chat.dispose({disposeSequence: false});
		}
	});
	queue = run.catch(() => {});
	return run;
}

function logUsage(tag, r) {
	if (!logPath) return;
	fs.appendFileSync(logPath, JSON.stringify({time: new Date().toISOString(), tag, prompt_tokens: r.promptTokens,
		completion_tokens: r.completionTokens, seconds: Number(r.seconds.toFixed(3)), stop: r.stop}) + "\n");
}

function send(res, status, obj) {
	const body = JSON.stringify(obj);
	res.writeHead(status, {"content-type": "application/json", "content-length": Buffer.byteLength(body)});
	res.end(body);
}

const server = http.createServer(async (req, res) => {
	try {
		if (req.method === "GET" && (req.url === "/health" || req.url === "/v1/models")) {
			return send(res, 200, {object: "list", data: [{id: modelName, object: "model", owned_by: "local"}]});
		}
		if (req.method !== "POST" || !req.url.startsWith("/v1/chat/completions")) {
			return send(res, 404, {error: {message: "not found", type: "invalid_request_error"}});
		}
		let raw = "";
		for await (const chunk of req) raw += chunk;
		const body = JSON.parse(raw);
		const tag = String(req.headers["x-bench-tag"] ?? "");
		const base = {id: "chatcmpl-local", created: Math.floor(Date.now() / 1000), model: body.model ?? modelName};
		const finish = (stop) => (stop === "maxTokens" ? "length" : "stop");
		const usage = (r) => ({prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens,
			total_tokens: r.promptTokens + r.completionTokens});
		if (!body.stream) {
			const r = await generate(body);
			logUsage(tag, r);
			return send(res, 200, {...base, object: "chat.completion",
				choices: [{index: 0, message: {role: "assistant", content: r.text}, finish_reason: finish(r.stop)}],
				usage: usage(r), timings: {seconds: r.seconds}});
		}
		res.writeHead(200, {"content-type": "text/event-stream", "cache-control": "no-cache"});
		const chunk = (delta, fin) => res.write("data: " + JSON.stringify({...base, object: "chat.completion.chunk",
			choices: [{index: 0, delta, finish_reason: fin}]}) + "\n\n");
		chunk({role: "assistant", content: ""}, null);
		const r = await generate(body, (text) => chunk({content: text}, null));
		logUsage(tag, r);
		chunk({}, finish(r.stop));
		if (body.stream_options?.include_usage) {
			res.write("data: " + JSON.stringify({...base, object: "chat.completion.chunk", choices: [], usage: usage(r)}) + "\n\n");
		}
		res.end("data: [DONE]\n\n");
	} catch (e) {
		if (res.headersSent) return res.end();
		send(res, e.status ?? 500, {error: {message: String(e.message ?? e), type: e.status ? "invalid_request_error" : "server_error",
			param: null, code: e.code ?? null}});
	}
});

server.listen(port, "127.0.0.1", () => {
	console.error(`server: ${modelName} (${chatWrapper.wrapperName} template) on http://127.0.0.1:${port}/v1, ${threads} threads, context ${ctxSize}`);
});
for (const sig of ["SIGINT", "SIGTERM"]) {
	process.on(sig, async () => {
		server.close();
		await context.dispose();
		await model.dispose();
		process.exit(0);
	});
}
