// pflame's flame graph script: hover shows a frame's count, click zooms
// into a frame (its ancestors stay, dimmed, at full width), Ctrl-F or F3
// searches names by regular expression, Ctrl-I toggles case, Escape
// resets. window.pflame exposes zoom, unzoom, search and resetSearch.
(function () {
	"use strict";
	var cfg = pflameConfig;
	var plot = cfg.width - 2 * cfg.xpad;
	var charWidth = cfg.fontsize * cfg.fontwidth;
	var frames = [];   // {g, rect, text, name, title, x, w, y, fill}
	var total = 0;
	var zoomed = null; // the frame zoomed into, or null
	var term = null;   // the current search term
	var ignoreCase = false;
	var details = document.getElementById("details").firstChild;
	var matched = document.getElementById("matched");
	var unzoomBtn = document.getElementById("unzoom");
	var searchBtn = document.getElementById("search");
	var icBtn = document.getElementById("ignorecase");

	var groups = document.getElementById("frames").children;
	for (var i = 0; i < groups.length; i++) {
		var g = groups[i];
		var rect = g.querySelector("rect");
		var title = g.querySelector("title").textContent;
		// The name is the title up to its last " (": the counts follow.
		var cut = title.lastIndexOf(" (");
		var f = {
			g: g, rect: rect, text: g.querySelector("text"),
			title: title, name: cut >= 0 ? title.substring(0, cut) : title,
			x: parseFloat(rect.getAttribute("data-x")),
			w: parseFloat(rect.getAttribute("data-w")),
			y: parseFloat(rect.getAttribute("y")),
			fill: rect.getAttribute("fill")
		};
		g.pflameIndex = i;
		frames.push(f);
		if (f.w > total) total = f.w;
	}

	function frameOf(node) {
		for (; node && node.parentNode; node = node.parentNode) {
			if (node.parentNode.id === "frames") return frames[node.pflameIndex];
		}
		return null;
	}

	// label fits the name into w pixels as flamegraph.pl does: whole, or
	// cut and ended with "..", or nothing when not even three characters fit.
	function label(f, w) {
		var chars = Math.floor(w / charWidth);
		if (chars < 3) return "";
		var name = f.name.replace(/_\[[kwij]\]$/, "");
		var runes = Array.from(name);
		if (runes.length <= chars) return name;
		return runes.slice(0, chars - 2).join("") + "..";
	}

	function place(f, x, w) {
		var x1 = Math.round(x * 10) / 10;
		var w1 = Math.round(w * 10) / 10;
		f.rect.setAttribute("x", x1);
		f.rect.setAttribute("width", w1);
		f.text.setAttribute("x", Math.round((x1 + 3) * 100) / 100);
		f.text.textContent = label(f, w1);
	}

	// above reports whether frame a is drawn on the root side of frame b.
	function above(a, b) {
		return cfg.inverted ? a.y < b.y : a.y > b.y;
	}

	function zoom(z) {
		var eps = z.w * 1e-9;
		var lo = z.x - eps, hi = z.x + z.w + eps;
		var scale = plot / z.w;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i], cl = f.g.classList;
			cl.remove("hide");
			cl.remove("parent");
			if (above(f, z)) {
				if (f.x <= lo + 2 * eps && f.x + f.w >= hi - 2 * eps) {
					cl.add("parent");
					place(f, cfg.xpad, plot);
				} else {
					cl.add("hide");
				}
			} else if (f.x >= lo && f.x + f.w <= hi) {
				place(f, cfg.xpad + (f.x - z.x) * scale, f.w * scale);
			} else {
				cl.add("hide");
			}
		}
		zoomed = z === frames[0] ? null : z;
		if (zoomed) unzoomBtn.classList.remove("hide");
		else unzoomBtn.classList.add("hide");
		if (term !== null) search(term);
	}

	function unzoom() {
		zoom(frames[0]);
	}

	function resetSearch() {
		term = null;
		for (var i = 0; i < frames.length; i++) frames[i].rect.setAttribute("fill", frames[i].fill);
		searchBtn.classList.remove("show");
		searchBtn.firstChild.nodeValue = "Search";
		matched.classList.add("hide");
		matched.firstChild.nodeValue = " ";
	}

	// search highlights the frames whose name matches re and shows the
	// share of the total they cover, not counting a match twice when it
	// is inside another (recursion). It returns the number of matches.
	function search(re) {
		var rx;
		try {
			rx = new RegExp(re, ignoreCase ? "i" : "");
		} catch (err) {
			matched.classList.remove("hide");
			matched.firstChild.nodeValue = "Bad regexp: " + err.message;
			return -1;
		}
		term = re;
		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (rx.test(f.name)) {
				f.rect.setAttribute("fill", cfg.searchcolor);
				hits.push(f);
			} else {
				f.rect.setAttribute("fill", f.fill);
			}
		}
		hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
		var covered = 0, end = -Infinity;
		for (var j = 0; j < hits.length; j++) {
			var h = hits[j];
			if (h.x >= end - h.w * 1e-9) {
				covered += h.w;
				end = h.x + h.w;
			}
		}
		var pct = total > 0 ? 100 * covered / total : 0;
		searchBtn.classList.add("show");
		searchBtn.firstChild.nodeValue = "Reset Search";
		matched.classList.remove("hide");
		matched.firstChild.nodeValue = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
		return hits.length;
	}

	function searchPrompt() {
		if (term !== null) {
			resetSearch();
			return;
		}
		var re = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
			(ignoreCase ? ", ignoring case" : "") +
			"\nPress Ctrl-I to toggle case sensitivity", "");
		if (re !== null && re !== "") search(re);
	}

	function toggleIgnoreCase() {
		ignoreCase = !ignoreCase;
		if (ignoreCase) icBtn.classList.add("show");
		else icBtn.classList.remove("show");
		if (term !== null) search(term);
	}

	window.addEventListener("click", function (e) {
		var f = frameOf(e.target);
		if (f) {
			zoom(f);
			return;
		}
		var id = e.target.id;
		if (id === "unzoom") unzoom();
		else if (id === "search") searchPrompt();
		else if (id === "ignorecase") toggleIgnoreCase();
	}, false);

	window.addEventListener("mouseover", function (e) {
		var f = frameOf(e.target);
		if (f) details.nodeValue = cfg.nametype + " " + f.title;
	}, false);

	window.addEventListener("mouseout", function (e) {
		if (frameOf(e.target)) details.nodeValue = " ";
	}, false);

	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { // F3, Ctrl-F
			e.preventDefault();
			searchPrompt();
		} else if (e.ctrlKey && e.keyCode === 73) { // Ctrl-I
			e.preventDefault();
			toggleIgnoreCase();
		} else if (e.keyCode === 27) { // Escape
			resetSearch();
			unzoom();
		}
	}, false);

	// A search term in the URL (?s=regexp) is applied on load.
	var m = /[?&]s=([^&]*)/.exec(window.location.search);
	if (m) search(decodeURIComponent(m[1]));

	window.pflame = {
		frames: function () { return frames.length; },
		zoom: function (i) { zoom(frames[i]); },
		unzoom: unzoom,
		search: search,
		resetSearch: resetSearch
	};
})();
