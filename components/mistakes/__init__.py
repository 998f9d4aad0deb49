"""What goes wrong with positions, and by how much (issue 59): each published mistake simulated in
NumPy against the exact float64 computation, as arrays a view plots.

    types       Simulation (the result), Rotary (the layer it runs on); imports none of the others
    scores      the float64 reference: random unit q and k, turned, and their q·k
    precision   bfloat16 and float16 emulated bit for bit; angles lost in the product, the
                positions or the cos/sin cache
    positions   left padding, a cache numbered by slot, dynamic NTK with a cache, positions from
                1, packed documents
    conversion  the pairing layout forgotten, the wrong θ, scaling dropped or twice, ALiBi slopes
    simulate    simulate(mistake, model, …): one of the above on a model's layer

This file imports nothing, so that `pe_explorer.simulate` loads only what it needs.
"""
