"""The experiments layer: studies built on the engines and the claim checks.

The sentiment experiment (sentiment), exact sequence classification (classify), the conjecture
lab (conjectures) and the protocol by which an experiment provides its section of the
verification report (sections). Modules here may import the core and claims layers, the
independent checker ``verify.certcheck`` and the public modules ``verify.strategies`` and
``verify.testing``. Three imports still reach into the app layer: ``sentiment.analyze`` uses
the report's number formatting, ``sentiment.protocol`` the sentiment command's training and
evaluation, ``conjectures.base`` the report's dependency versions.
"""
