// tests/validate/svg.js: an interactive flame graph SVG used the way a reader uses it, in headless
// Chromium driven by puppeteer-core:
//   - the document loads with no script error (an uncaught exception or a console error);
//   - it has frames: <g> elements holding a <title> ("NAME (...)") and a <rect>;
//   - with TERM: the #search control is clicked and the prompt answered with a regular
//     expression matching TERM literally; the frames whose rect fill changed must be exactly the
//     frames whose name contains TERM, and there must be some;
//   - a click on the widest frame narrower than the graph (among those naming TERM, when given)
//     zooms: that frame then spans the graph's width; a click on #unzoom puts every frame back.
//
// usage: NODE_PATH=DIR/node_modules node svg.js CHROMIUM FILE [TERM]
// exit:  0 accepted, 1 rejected (the reason on stderr)
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const [chromium, file, term] = process.argv.slice(2);
const TIME_LIMIT_MS = 60000;

class Rejected extends Error {}

function reject(msg) {
	throw new Rejected(msg);
}

// In the page: every frame's name, fill, geometry and visibility, in document order.
function frames() {
	return [...document.querySelectorAll("g")]
		.filter(g => g.querySelector(":scope > title") && g.querySelector(":scope > rect"))
		.map(g => {
			const title = g.querySelector(":scope > title").textContent;
			const rect = g.querySelector(":scope > rect");
			const cut = title.lastIndexOf(" (");
			return { name: cut >= 0 ? title.slice(0, cut) : title,
				 fill: getComputedStyle(rect).fill, w: parseFloat(rect.getAttribute("width")),
				 shown: getComputedStyle(g).display !== "none" &&
					getComputedStyle(g).visibility !== "hidden" };
		});
}

async function searchCheck(page, before, errors) {
	const dialogs = [];
	page.on("dialog", d => {
		dialogs.push(d.type());
		d.accept(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
	});
	if (!await page.$("#search"))
		reject("no #search control");
	await page.click("#search");
	if (!dialogs.includes("prompt"))
		reject("clicking #search asked for no search term");
	const after = await page.evaluate(frames);
	const want = before.map(f => f.name.includes(term));
	const got = after.map((f, i) => f.fill !== before[i].fill);
	if (!want.some(Boolean))
		reject(`no frame is named with ${JSON.stringify(term)}`);
	const wrong = before.filter((f, i) => want[i] !== got[i]).slice(0, 3)
		.map(f => `${JSON.stringify(f.name)} ${f.name.includes(term) ? "not " : ""}highlighted`);
	if (wrong.length || errors.length)
		reject(`search ${JSON.stringify(term)}: ${wrong.concat(errors).join("; ")}`);
	return got.filter(Boolean).length;
}

async function zoomCheck(page, before) {
	const full = Math.max(...before.map(f => f.w));
	let target = -1;
	before.forEach((f, i) => {
		if (f.w < full - 0.5 && f.shown && (!term || f.name.includes(term)) &&
		    (target < 0 || f.w > before[target].w))
			target = i;
	});
	if (target < 0)
		return "nothing to zoom (every candidate frame spans the graph)";
	const rect = await page.evaluateHandle(i => [...document.querySelectorAll("g")]
		.filter(g => g.querySelector(":scope > title") && g.querySelector(":scope > rect"))[i]
		.querySelector(":scope > rect"), target);
	await rect.click();
	const zoomed = await page.evaluate(frames);
	if (!(zoomed[target].w >= full - 1))
		reject(`click on ${JSON.stringify(before[target].name)} (width ${before[target].w}) ` +
		       `did not zoom: width ${zoomed[target].w}, graph ${full}`);
	if (!await page.$("#unzoom"))
		reject("no #unzoom control");
	await page.click("#unzoom");
	const back = await page.evaluate(frames);
	const moved = back.findIndex((f, i) => Math.abs(f.w - before[i].w) > 0.01 || f.shown !== before[i].shown);
	if (moved >= 0)
		reject(`after #unzoom, ${JSON.stringify(back[moved].name)} is not back (width ` +
		       `${back[moved].w}, was ${before[moved].w})`);
	return `zoomed into ${JSON.stringify(before[target].name)} and back`;
}

(async () => {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "t2f-chromium-"));
	let browser, status = 1;
	const timer = setTimeout(() => {
		console.error(`${file}: no result within ${TIME_LIMIT_MS / 1000} s`);
		if (browser && browser.process())
			browser.process().kill("SIGKILL");
		fs.rmSync(profile, { recursive: true, force: true });
		process.exit(1);
	}, TIME_LIMIT_MS);
	try {
		browser = await puppeteer.launch({
			executablePath: chromium, headless: true, userDataDir: profile,
			args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--no-first-run"] });
		const page = await browser.newPage();
		const errors = [];
		page.on("pageerror", e => errors.push(`script error: ${e.message}`));
		page.on("console", m => {
			if (m.type() === "error")
				errors.push(`console error: ${m.text()}`);
		});
		await page.goto("file://" + path.resolve(file), { waitUntil: "load" });
		const before = await page.evaluate(frames);
		if (errors.length)
			reject(`on load: ${errors.join("; ")}`);
		if (!before.length)
			reject("no frames (<g> with <title> and <rect>)");
		const highlighted = term === undefined ? 0 : await searchCheck(page, before, errors);
		const zoom = await zoomCheck(page, before);
		if (errors.length)
			reject(errors.join("; "));
		console.log(`svg OK: ${file}: ${before.length} frames` +
			    (term === undefined ? "" : `, ${highlighted} highlighted by ${JSON.stringify(term)}`) +
			    `, ${zoom}`);
		status = 0;
	} catch (e) {
		console.error(`${file}: ${e instanceof Rejected ? "" : "browser: "}${e.message}`);
	} finally {
		if (browser)
			await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
		clearTimeout(timer);
	}
	process.exit(status);
})();
