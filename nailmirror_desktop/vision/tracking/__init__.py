"""Hands in a frame: MediaPipe landmarks (the only place mediapipe is imported), the hand model bundle, smoothing,
recovery and the still-photo detector."""
