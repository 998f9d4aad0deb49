"""The plotting kit under every view: theme and Plotly template, the chart frame with its name
and Show data table, number formatting, chart layouts and upload widgets.

It imports the maths, the state and the derived arrays, never a view or the page.
"""
