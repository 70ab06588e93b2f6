"""Keeps the demo frontend busy with the official `openai` client for a while.

    python3 tests/python/openai_load.py BASE_URL SECONDS THREADS MAX_TOKENS

THREADS threads each send streamed completions one after another until SECONDS have passed,
asking for 1 to MAX_TOKENS tokens (a different count each time, so latencies spread over
several buckets), then the script prints one JSON object: the id of every completion the client received (the
`id` of its chunks, which the server also uses as the request's trace id) and how many
completions finished.
"""

import json
import sys
import threading
import time

import openai


def main():
    base_url, seconds, threads, max_tokens = sys.argv[1:5]
    client = openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0)
    model = client.models.list().data[0].id
    deadline = time.monotonic() + float(seconds)
    lock = threading.Lock()
    ids = []
    errors = []

    def worker(index):
        sent = 0
        while time.monotonic() < deadline:
            sent += 1
            try:
                stream = client.completions.create(
                    model=model,
                    prompt="hello " * 64,
                    max_tokens=1 + (index * 13 + sent * 7) % int(max_tokens),
                    stream=True,
                )
                request_id = None
                for chunk in stream:
                    request_id = chunk.id
                with lock:
                    ids.append(request_id)
            except Exception as e:  # reported, and the test fails on any
                with lock:
                    errors.append(repr(e))
                return

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(int(threads))]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(json.dumps({"ids": ids, "errors": errors}))


if __name__ == "__main__":
    main()
