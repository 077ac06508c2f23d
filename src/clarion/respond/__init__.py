"""The respond stage: what the system says once the knowledge is selected (generators, closing questions, FAQ
answers). Ranking candidate replies to a dialogue context is the task :mod:`clarion.replies`."""
