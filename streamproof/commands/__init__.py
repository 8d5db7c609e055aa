"""One module per subcommand: `HELP`, `add_arguments(parser)` and `main(args) -> exit code`."""
