"""The core layer: exact numbers and inputs, both engines and the mathematics they rest on.

Number parsing (numbers), text safe to show (text), how numbers are written for a reader
(formatting), exit statuses (exitcodes), bounded reads and atomic writes (io), the versions a
result depends on (versions), configurations and the theorem's hypotheses (config), exact linear
algebra and geometry (linalg, geometry), the exact engine and the float engine with its rounding
model and compiled kernel (exact_dynamics, float_dynamics, float_rounding, float_kernel), the D9
closed forms (closed_form), ``simulate`` (trajectory), the documented limits (limits), seeded
configuration families and the worked configurations (families, worked), the Hypothesis settings
profiles (profiles), the independent one-step oracle (oracle, standard library only) and the
certified distance between softmax and hardmax attention (softmax_bound). Modules here import
the standard library, third-party packages and each other, and the independent checker
``verify.certcheck`` (limits asks it how much work it allows): nothing from claims, experiments or
app (docs/architecture.md).
"""
