import argparse


class FlexibleArgumentParser(argparse.ArgumentParser):
    """Accepts the words it does not know (the real one knows every engine flag)."""

    def parse_args(self, args=None, namespace=None):
        known, _ = self.parse_known_args(args, namespace)
        return known
