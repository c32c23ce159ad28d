// The Firefox variant of the push worker (placeholder until the worker lands).
import './sw.ts';
