"""ClariQ (ConvAI3): clarification need, clarifying-question ranking, benchmark."""
