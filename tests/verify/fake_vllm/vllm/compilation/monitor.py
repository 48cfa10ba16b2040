CAPTURING = [False]


def set_cudagraph_capturing_enabled(enabled):
    CAPTURING[0] = enabled
