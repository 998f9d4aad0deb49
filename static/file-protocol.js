// Shown instead of Panel's loading spinner when the page is opened from disk. Browsers will not
// start the page's Web Worker (which runs Python with Pyodide) for a page whose protocol is
// "file:", so the spinner would turn forever. The message is built from fixed text only.
(() => {
  "use strict";
  if (window.location.protocol !== "file:") {
    return;
  }

  function element(tag, text, style) {
    var node = document.createElement(tag);
    if (text) {
      node.textContent = text;
    }
    Object.assign(node.style, style || {});
    return node;
  }

  function command(text) {
    return element("code", text, {
      background: "#eef1f5",
      borderRadius: "4px",
      padding: "0.1em 0.35em",
      whiteSpace: "nowrap",
    });
  }

  function showMessage() {
    var body = document.body;
    // Once: the site's own copy of Bokeh now runs from disk too, and may run this again.
    if (document.querySelector(".pe-file-protocol-message")) {
      return;
    }
    // Panel marks the loading state with body classes: pn-loading and pn-<spinner name>.
    Array.prototype.slice.call(body.classList).forEach((name) => {
      if (name.indexOf("pn-") === 0) {
        body.classList.remove(name);
      }
    });

    var box = element("div", null, {
      maxWidth: "40em",
      margin: "2em auto",
      padding: "1em 1.5em",
      border: "2px solid #c0392b",
      borderRadius: "8px",
      background: "#fff",
      color: "#222",
      font: "16px/1.5 system-ui, sans-serif",
    });
    box.className = "pe-file-protocol-message";
    box.setAttribute("role", "alert");
    box.appendChild(element("h1", "Serve this folder to run the app", { fontSize: "1.4em" }));
    box.appendChild(
      element(
        "p",
        "Positional Encoding Explorer runs Python in your browser, in a Web Worker. " +
          "Browsers do not start workers for pages opened from disk, so the page has to be " +
          "served over HTTP.",
      ),
    );

    var fromProject = element("p", "From the project folder, run ");
    fromProject.appendChild(command("./build.sh serve"));
    fromProject.appendChild(document.createTextNode(" and open http://localhost:8000/."));
    box.appendChild(fromProject);

    var fromSite = element("p", "Or serve this folder with any web server, for instance ");
    fromSite.appendChild(command("python3 -m http.server 8000"));
    fromSite.appendChild(document.createTextNode(" run inside it."));
    box.appendChild(fromSite);

    body.insertBefore(box, body.firstChild);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showMessage);
  } else {
    showMessage();
  }
})();
