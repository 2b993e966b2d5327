"""The core model: facts, plans, rules, events, the world, the executors and the law.

The bottom layer. It imports nothing else from cvlib and nothing heavier than
the standard library, so running a scenario never loads numpy or pandas.
"""
