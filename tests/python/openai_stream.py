"""Streams completions from the demo frontend with the official `openai` client.

    python3 tests/python/openai_stream.py BASE_URL STREAMED PLAIN PROMPT_WORDS MAX_TOKENS

Sends STREAMED streamed completions (with usage) one after another, then PLAIN plain ones,
and prints one JSON object: per request, what the client received (tokens counted from the
text, usage, finish reason) and, for streamed ones, the time to first token the client
measured from just before the request was sent to the first chunk with text. The first
streamed request also pays the client's one-time costs (lazy imports of the streaming code),
so its time to first token is reported as `warmup_ttft`, apart from the others.
"""

import json
import sys
import time

import openai


def main():
    base_url, streamed, plain, words, max_tokens = sys.argv[1:6]
    client = openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0)
    models = [m.id for m in client.models.list().data]
    model = models[0]
    prompt = " ".join(["hello"] * int(words))
    out = {"models": models, "streamed": [], "plain": []}
    for i in range(int(streamed)):
        start = time.perf_counter()
        stream = client.completions.create(
            model=model,
            prompt=prompt,
            max_tokens=int(max_tokens),
            stream=True,
            stream_options={"include_usage": True},
        )
        ttft = None
        tokens = 0
        finish = None
        usage = None
        chunks = 0
        for chunk in stream:
            if chunk.choices:
                choice = chunk.choices[0]
                n = len(choice.text.split())
                if n and ttft is None:
                    ttft = time.perf_counter() - start
                tokens += n
                chunks += 1
                finish = choice.finish_reason or finish
            if chunk.usage is not None:
                usage = chunk.usage.model_dump()
        if i == 0:
            out["warmup_ttft"] = ttft
            ttft = None
        out["streamed"].append(
            {"ttft": ttft, "tokens": tokens, "chunks": chunks, "finish": finish, "usage": usage}
        )
    for _ in range(int(plain)):
        c = client.completions.create(model=model, prompt=prompt, max_tokens=int(max_tokens))
        out["plain"].append(
            {
                "tokens": len(c.choices[0].text.split()),
                "finish": c.choices[0].finish_reason,
                "usage": c.usage.model_dump(),
            }
        )
    try:
        client.completions.create(model="no-such-model", prompt=prompt, max_tokens=1)
        out["unknown_model"] = "accepted"
    except openai.NotFoundError as e:
        out["unknown_model"] = e.status_code
    print(json.dumps(out))


if __name__ == "__main__":
    main()
