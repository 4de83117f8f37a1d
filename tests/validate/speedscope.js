// tests/validate/speedscope.js: a speedscope file checked against the file format, by three
// independent means:
//   1. the JSON schema the speedscope npm package ships (dist/release/file-format-schema.json),
//      applied by ajv;
//   2. what the schema cannot say: every frame index in range, one weight per sample, values in
//      [startValue, endValue], evented profiles' events in time order with each "C" closing the
//      innermost open frame and none left open, activeProfileIndex in range;
//   3. speedscope's own importer: the package's release build (index.html and its bundle) runs in
//      jsdom and is handed the file the way `speedscope FILE` hands it (the
//      #localProfilePath=SCRIPT hook calling speedscope.loadFileFromBase64); it must log that it
//      imports a speedscope file, set the page title to "NAME - speedscope", and report no
//      failure (a "Failed to load format" log, an alert, an uncaught error).
//
// usage: NODE_PATH=DIR/node_modules node speedscope.js FILE   (tests/validate/check sets it up)
// exit:  0 accepted, 1 rejected (the reason on stderr)
"use strict";
const fs = require("fs");
const path = require("path");

const file = process.argv[2];
const release = path.join(path.dirname(require.resolve("speedscope/package.json")), "dist",
	"release");

function reject(msg) {
	console.error(`${file}: ${msg}`);
	process.exit(1);
}

function parse(bytes) {
	let text;
	try {
		text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch (e) {
		reject("not valid UTF-8");
	}
	try {
		return JSON.parse(text);
	} catch (e) {
		reject(`not JSON: ${e.message}`);
	}
}

function checkSchema(doc) {
	const Ajv = require("ajv");
	const schema = JSON.parse(fs.readFileSync(path.join(release, "file-format-schema.json"), "utf8"));
	const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
	if (!validate(doc)) {
		const errs = validate.errors.slice(0, 5).map(e => `${e.instancePath || "/"} ${e.message}`);
		reject(`schema: ${errs.join("; ")}`);
	}
}

function checkFrame(where, f, nframes) {
	if (!Number.isInteger(f) || f < 0 || f >= nframes)
		reject(`${where}: frame index ${f} not in [0, ${nframes})`);
}

function checkSampled(where, p, nframes) {
	if (p.samples.length !== p.weights.length)
		reject(`${where}: ${p.samples.length} samples but ${p.weights.length} weights`);
	p.samples.forEach((s, i) => s.forEach(f => checkFrame(`${where} sample ${i}`, f, nframes)));
	p.weights.forEach((w, i) => {
		if (!Number.isFinite(w) || w < 0)
			reject(`${where}: weight ${i} is ${w}`);
	});
}

function checkEvented(where, p, nframes) {
	const open = [];
	let last = p.startValue;
	p.events.forEach((e, i) => {
		const at = `${where} event ${i}`;
		checkFrame(at, e.frame, nframes);
		if (e.at < last || e.at > p.endValue)
			reject(`${at}: at ${e.at} not in [${last}, ${p.endValue}] (time order)`);
		last = e.at;
		if (e.type === "O")
			open.push(e.frame);
		else if (open.pop() !== e.frame)
			reject(`${at}: closes frame ${e.frame}, which is not the innermost open frame`);
	});
	if (open.length)
		reject(`${where}: ${open.length} frames left open at the end`);
}

function checkStructure(doc) {
	const nframes = doc.shared.frames.length;
	const n = doc.profiles.length;
	if (doc.activeProfileIndex !== undefined && doc.activeProfileIndex !== null &&
	    (!Number.isInteger(doc.activeProfileIndex) || doc.activeProfileIndex < 0 ||
	     doc.activeProfileIndex >= n))
		reject(`activeProfileIndex ${doc.activeProfileIndex} not in [0, ${n})`);
	doc.profiles.forEach((p, i) => {
		const where = `profile ${i} (${JSON.stringify(p.name)})`;
		if (!(p.startValue <= p.endValue))
			reject(`${where}: startValue ${p.startValue} > endValue ${p.endValue}`);
		if (p.type === "sampled")
			checkSampled(where, p, nframes);
		else
			checkEvented(where, p, nframes);
	});
}

// The importer run: resolves with the list of problems (empty: accepted).
function runImporter(bytes, name) {
	const { JSDOM, ResourceLoader, VirtualConsole } = require("jsdom");
	const origin = "http://speedscope.invalid";
	const hook = `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ` +
		`${JSON.stringify(bytes.toString("base64"))})`;
	const logs = [], problems = [];

	// serves the release directory and the hook script, nothing else (no network)
	class Loader extends ResourceLoader {
		fetch(url) {
			const u = new URL(url);
			if (u.protocol === "file:" && u.pathname.endsWith("/t2f-hook.js"))
				return Promise.resolve(Buffer.from(hook));
			if (u.origin === origin)
				return fs.promises.readFile(path.join(release, path.basename(u.pathname)));
			return null;
		}
	}
	const text = a => a.map(x => (x && x.message) || String(x)).join(" ").slice(0, 300);
	const vc = new VirtualConsole();
	vc.on("log", (...a) => logs.push(text(a)));
	vc.on("error", (...a) => {
		const t = text(a);
		if (!t.startsWith("Failed to create WebGL context")) // jsdom has no WebGL
			problems.push(`console.error: ${t}`);
	});
	vc.on("jsdomError", e => {
		if (!/^Not implemented/.test(e.message))
			problems.push(`script error: ${e.message}`);
	});
	process.on("uncaughtException", e => problems.push(`uncaught: ${e.message}`));

	const dom = new JSDOM(fs.readFileSync(path.join(release, "index.html")), {
		url: `${origin}/index.html#localProfilePath=t2f-hook.js`,
		resources: new Loader(), runScripts: "dangerously", pretendToBeVisual: true,
		virtualConsole: vc,
		beforeParse(w) {
			w.TextDecoder = TextDecoder;
			w.TextEncoder = TextEncoder;
			w.alert = m => problems.push(`alert: ${m}`);
			w.matchMedia = () => ({ matches: false, addEventListener() {},
				removeEventListener() {}, addListener() {}, removeListener() {} });
			w.HTMLCanvasElement.prototype.getContext = () => null;
			w.Element.prototype.scrollIntoView = () => {};
		},
	});
	const start = Date.now();
	return new Promise(resolve => {
		const poll = () => {
			const title = dom.window.document.title;
			const failed = logs.find(l => l.startsWith("Failed to load format"));
			if (failed)
				problems.push(failed);
			if (problems.length || title !== "speedscope" || Date.now() - start > 30000) {
				// let the import finish (demangling, the first render) before judging
				setTimeout(() => {
					if (!logs.includes("Importing as speedscope json file"))
						problems.push(`not imported as a speedscope file (log: ${logs.join(" | ")})`);
					if (title === "speedscope" && !problems.length)
						problems.push("no profile loaded within 30 s");
					dom.window.close();
					resolve({ title, problems });
				}, 200);
				return;
			}
			setTimeout(poll, 25);
		};
		poll();
	});
}

(async () => {
	const bytes = fs.readFileSync(file);
	const doc = parse(bytes);
	checkSchema(doc);
	checkStructure(doc);
	// the name decides the importer: the .speedscope.json suffix selects the speedscope one
	const { title, problems } = await runImporter(bytes, "t2f.speedscope.json");
	if (problems.length)
		reject(`speedscope's importer: ${problems.join("; ")}`);
	const want = `${doc.name} - speedscope`;
	if (doc.name !== undefined && title !== want)
		reject(`speedscope's importer: title ${JSON.stringify(title)}, expected ${JSON.stringify(want)}`);
	const np = doc.profiles.length;
	console.log(`speedscope OK: ${file} (${np} profile${np === 1 ? "" : "s"}, ` +
		`title ${JSON.stringify(title)})`);
	process.exit(0);
})();
