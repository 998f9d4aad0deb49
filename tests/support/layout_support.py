"""What a person sees of a card's charts: whether any text of a chart (tick labels, axis titles,
annotations, the legend, a colour bar, the title) covers the plot area of another chart, whether
a legend covers an axis's tick labels or title, whether any runs past the card's edge, and
whether a chart is drawn as tall as its pane. Read
in the page (Plotly's own DOM and _fullLayout)."""

from __future__ import annotations

from pyodide_support import INSIDE_JS

# How much two boxes may share before it counts as an overlap (px, each way): anti-aliasing.
SLACK_PX = 2

# (view) => the card's problems, as sentences: [] when every chart's text keeps to its place.
OVERLAPS_JS = (
    """(view) => {
  const SLACK = """
    + str(SLACK_PX)
    + """;
  const card = __offline.deep(`.pe-view-${view}`)[0];
  if (!card) return [`no card of ${view}`];
  const inside = (root, selector) => ("""
    + INSIDE_JS
    + """)(root, selector);
  const shared = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > SLACK
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > SLACK;
  const edge = card.getBoundingClientRect();
  const problems = [];
  for (const chart of inside(card, '.js-plotly-plot')) {
    if (!chart.getClientRects().length || !chart._fullLayout) continue;
    const full = chart._fullLayout;
    // Drawn as tall as its pane, which Python sized to the figure (fixes/plotly_height.py).
    const pane = chart.getRootNode().host;
    if (pane && Math.abs(pane.clientHeight - full.height) > SLACK) {
      const drawn = Math.round(full.height);
      problems.push(`a chart drawn ${drawn} px tall in a pane of ${pane.clientHeight} px`);
    }
    const areas = [...chart.querySelectorAll('.draglayer > g')].map((group) => ({
      id: [...group.classList].find((name) => /^x\\d*y\\d*$/.test(name)),
      box: group.querySelector('.nsewdrag')?.getBoundingClientRect(),
    })).filter((area) => area.id && area.box && area.box.width > 0);
    const plotBox = chart.getBoundingClientRect();
    // The subplot a point of the paper (Plotly's fractions) falls in, if any.
    const areaAt = (x, y) => {
      const px = plotBox.left + full._size.l + x * full._size.w;
      const py = plotBox.top + full._size.t + (1 - y) * full._size.h;
      const area = areas.find(({box}) => px >= box.left - SLACK && px <= box.right + SLACK
        && py >= box.top - SLACK && py <= box.bottom + SLACK);
      return area ? area.id : null;
    };
    const axisOwner = (name) => {
      const axis = full[name];
      if (!axis) return null;
      return name.startsWith('x') ? `${axis._id}${axis.anchor}` : `${axis.anchor}${axis._id}`;
    };
    const texts = [];
    for (const subplot of chart.querySelectorAll('.cartesianlayer > .subplot')) {
      const id = [...subplot.classList].find((name) => /^x\\d*y\\d*$/.test(name));
      for (const label of subplot.querySelectorAll('.xtick text, .ytick text')) {
        texts.push({what: 'tick label', element: label, owner: id});
      }
    }
    for (const title of chart.querySelectorAll('.infolayer [class*="title"]')) {
      const found = /^g-(x|y)(\\d*)title$/.exec(title.getAttribute('class') || '');
      if (found) {
        const name = `${found[1]}axis${found[2]}`;
        texts.push({what: 'axis title', element: title, owner: axisOwner(name)});
      } else if (title.classList.contains('g-gtitle')) {
        texts.push({what: 'title', element: title, owner: null});
      }
    }
    for (const note of chart.querySelectorAll('.infolayer .annotation')) {
      const item = full.annotations[Number(note.getAttribute('data-index'))] || {};
      // An annotation on an axis belongs to that axis's chart; one on the paper, to the chart
      // its anchor point is over (if any).
      const [xref, yref] = [item.xref, item.yref].map((ref) => String(ref).split(' ')[0]);
      let owner = `${xref}${yref}`;
      if (xref === 'paper' && yref === 'paper') owner = areaAt(item.x, item.y);
      else if (xref === 'paper') owner = axisOwner(`yaxis${yref.slice(1)}`);
      else if (yref === 'paper') owner = axisOwner(`xaxis${xref.slice(1)}`);
      texts.push({what: 'annotation', element: note, owner});
    }
    for (const element of chart.querySelectorAll('.infolayer .legend')) {
      texts.push({what: 'legend', element, owner: 'centre'});
    }
    for (const element of chart.querySelectorAll('.infolayer .colorbar')) {
      texts.push({what: 'colour bar', element, owner: 'centre'});
    }
    // A legend or colour bar belongs to the chart its middle is over (if any): it may sit on
    // that one, never on another.
    const centreOwner = (box) => {
      const x = (box.left + box.right) / 2;
      const y = (box.top + box.bottom) / 2;
      const area = areas.find((a) => x >= a.box.left && x <= a.box.right
        && y >= a.box.top && y <= a.box.bottom);
      return area ? area.id : null;
    };
    for (const {what, element, owner: given} of texts) {
      const box = element.getBoundingClientRect();
      if (box.width <= 0 || box.height <= 0) continue;
      const owner = given === 'centre' ? centreOwner(box) : given;
      const name = `${what} "${(element.textContent || '').trim().slice(0, 40)}"`;
      for (const area of areas) {
        if (area.id !== owner && shared(box, area.box)) {
          problems.push(`${name} covers the chart ${area.id}`);
        }
      }
      if (box.left < edge.left - SLACK || box.right > edge.right + SLACK) {
        problems.push(`${name} runs past the card's edge`);
      }
    }
    // A legend covers no axis's words: its tick labels or its title.
    const words = texts.filter(({what}) => what === 'tick label' || what === 'axis title');
    for (const {element} of texts.filter(({what}) => what === 'legend')) {
      const box = element.getBoundingClientRect();
      for (const word of words) {
        const text = word.element.getBoundingClientRect();
        if (text.width > 0 && shared(box, text)) {
          problems.push(`the legend covers the ${word.what} "${word.element.textContent.trim()}"`);
        }
      }
    }
  }
  return problems;
}"""
)
