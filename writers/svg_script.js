// Flame graph behaviour: hover details, click to zoom, regular-expression search, URL state.
// The document gives each frame as <g><title>NAME (N UNIT, P%)</title><rect/><text/></g> inside
// #frames, parents before children; depth comes from the rect's y.
"use strict";
var FONT_SIZE = 12, FONT_WIDTH = 0.59, FRAME_H = 16, MATCH_FILL = "rgb(230,0,230)";
var fg = { frames: [], total: 0, inverted: false, xpad: 10, width: 0, zoomed: null,
	   term: null, ignoreCase: false, countName: "samples" };

function fgText(id) { return document.getElementById(id); }

// Parses every frame once: name, weight, geometry, parent and the end of its subtree.
function fgLoad() {
	var gs = fgText("frames").children, stack = [], y0 = 0;
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], rect = g.querySelector("rect"), label = g.querySelector("text");
		var title = g.querySelector("title").textContent, cut = title.lastIndexOf(" (");
		var f = { g: g, rect: rect, label: label, index: i,
			  name: cut >= 0 ? title.slice(0, cut) : title,
			  weight: parseInt(title.slice(cut + 2).replace(/,/g, ""), 10) || 0,
			  x: parseFloat(rect.getAttribute("x")), w: parseFloat(rect.getAttribute("width")),
			  y: parseFloat(rect.getAttribute("y")), fill: rect.getAttribute("fill"),
			  parent: null, end: i + 1, depth: 0 };
		if (i === 0)
			y0 = f.y;
		f.depth = Math.round((fg.inverted ? f.y - y0 : y0 - f.y) / FRAME_H);
		while (stack.length && stack[stack.length - 1].depth >= f.depth)
			stack.pop();
		f.parent = stack.length ? stack[stack.length - 1] : null;
		for (var k = 0; k < stack.length; k++)
			stack[k].end = i + 1;
		stack.push(f);
		g.fgIndex = i;
		fg.frames.push(f);
	}
	fg.total = fg.frames.length ? fg.frames[0].weight : 0;
}

function fgLabel(f, w) {
	var fit = Math.floor((w - 3) / (FONT_SIZE * FONT_WIDTH));
	if (fit < 3)
		return "";
	return f.name.length <= fit ? f.name : f.name.slice(0, fit - 2) + "..";
}

function fgPlace(f, x, w) {
	f.rect.setAttribute("x", x.toFixed(2));
	f.rect.setAttribute("width", w.toFixed(2));
	f.label.setAttribute("x", (x + 3).toFixed(2));
	f.label.textContent = fgLabel(f, w);
}

function fgFrameOf(node) {
	while (node && node.parentNode && node.parentNode.id !== "frames")
		node = node.parentNode;
	return node && node.fgIndex !== undefined ? fg.frames[node.fgIndex] : null;
}

function zoom(f) {
	var ratio = fg.width / f.w, a;
	if (!f.parent) {
		unzoom();
		return;
	}
	fg.zoomed = f;
	fgText("unzoom").classList.remove("hide");
	for (var i = 0; i < fg.frames.length; i++) {
		var o = fg.frames[i];
		o.g.classList.add("hide");
		o.g.classList.remove("parent");
	}
	for (a = f.parent; a; a = a.parent) {
		a.g.classList.remove("hide");
		a.g.classList.add("parent");
		fgPlace(a, fg.xpad, fg.width);
	}
	for (var j = f.index; j < f.end; j++) {
		var d = fg.frames[j];
		d.g.classList.remove("hide");
		fgPlace(d, fg.xpad + (d.x - f.x) * ratio, d.w * ratio);
	}
	fgUrl();
}

function unzoom() {
	fg.zoomed = null;
	fgText("unzoom").classList.add("hide");
	for (var i = 0; i < fg.frames.length; i++) {
		var f = fg.frames[i];
		f.g.classList.remove("hide");
		f.g.classList.remove("parent");
		fgPlace(f, f.x, f.w);
	}
	fgUrl();
}

function fgRegExp(term) {
	var flags = fg.ignoreCase ? "i" : "";
	try {
		return new RegExp(term, flags);
	} catch (e) {
		return new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), flags);
	}
}

// Highlights the frames whose name matches term; "Matched:" counts each matched weight once
// (a match inside a matched frame adds nothing).
function search(term) {
	if (term === undefined || term === null || term === "") {
		resetSearch();
		return;
	}
	var re = fgRegExp(String(term)), sum = 0, coveredTo = 0;
	fg.term = String(term);
	for (var i = 0; i < fg.frames.length; i++) {
		var f = fg.frames[i], hit = re.test(f.name);
		f.rect.setAttribute("fill", hit ? MATCH_FILL : f.fill);
		if (hit && i >= coveredTo) {
			sum += f.weight;
			coveredTo = f.end;
		}
	}
	var pct = fg.total ? 100 * sum / fg.total : 0;
	fgText("matched").textContent = "Matched: " + (pct === 100 ? "100" : pct.toFixed(2)) + "%";
	fgText("search").textContent = "Reset Search";
	fgText("search").classList.add("on");
	fgUrl();
}

function resetSearch() {
	fg.term = null;
	for (var i = 0; i < fg.frames.length; i++)
		fg.frames[i].rect.setAttribute("fill", fg.frames[i].fill);
	fgText("matched").textContent = " ";
	fgText("search").textContent = "Search";
	fgText("search").classList.remove("on");
	fgUrl();
}

// The Search button resets an active search; Ctrl-F and F3 always ask (force).
function askSearch(force) {
	if (fg.term !== null && force !== true) {
		resetSearch();
		return;
	}
	var term = prompt("Search for (regular expression):", "");
	if (term)
		search(term);
}

function toggleIgnoreCase() {
	fg.ignoreCase = !fg.ignoreCase;
	fgText("ignorecase").classList.toggle("on", fg.ignoreCase);
	if (fg.term !== null)
		search(fg.term);
}

// Zoom and search in the query string: ?x=&y= (the zoomed frame's rect) and ?s= (the term).
function fgUrl() {
	var q = [], base = location.href.split("#")[0].split("?")[0];
	if (fg.zoomed)
		q.push("x=" + fg.zoomed.x, "y=" + fg.zoomed.y);
	if (fg.term !== null)
		q.push("s=" + encodeURIComponent(fg.term));
	try {
		history.replaceState(null, "", q.length ? base + "?" + q.join("&") : base);
	} catch (e) {
		// some viewers forbid it (file: URLs in some browsers): the state is just not kept
	}
}

function fgRestore() {
	var params = new URLSearchParams(location.search);
	if (params.has("x") && params.has("y")) {
		var x = parseFloat(params.get("x")), y = parseFloat(params.get("y"));
		for (var i = 0; i < fg.frames.length; i++) {
			var f = fg.frames[i];
			if (Math.abs(f.x - x) < 0.005 && Math.abs(f.y - y) < 0.05) {
				zoom(f);
				break;
			}
		}
	}
	if (params.get("s"))
		search(params.get("s"));
}

function init(evt) {
	var root = document.documentElement, frames = fgText("frames");
	fg.inverted = root.getAttribute("data-inverted") === "1";
	fg.xpad = parseFloat(root.getAttribute("data-xpad")) || 10;
	fg.width = parseFloat(root.getAttribute("width")) - 2 * fg.xpad;
	fgLoad();
	frames.addEventListener("click", function (e) {
		var f = fgFrameOf(e.target);
		if (f)
			zoom(f);
	});
	frames.addEventListener("mouseover", function (e) {
		var f = fgFrameOf(e.target);
		if (f)
			fgText("details").textContent = "Function: " + f.g.querySelector("title").textContent;
	});
	frames.addEventListener("mouseout", function () {
		fgText("details").textContent = " ";
	});
	fgText("unzoom").addEventListener("click", unzoom);
	fgText("search").addEventListener("click", askSearch);
	fgText("ignorecase").addEventListener("click", toggleIgnoreCase);
	window.addEventListener("keydown", function (e) {
		var ctrl = e.ctrlKey || e.metaKey;
		if (e.key === "F3" || (ctrl && (e.key === "f" || e.key === "F"))) {
			e.preventDefault();
			askSearch(true);
		} else if (ctrl && (e.key === "i" || e.key === "I")) {
			e.preventDefault();
			toggleIgnoreCase();
		}
	});
	fgRestore();
}
