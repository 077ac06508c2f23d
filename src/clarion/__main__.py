"""``python -m clarion`` runs the command line."""

from clarion.cli import main

if __name__ == "__main__":
    main()
