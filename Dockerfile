# posenc in one container: one Streamlit process on port 8501.
#   docker build -t posenc . && docker run --rm -p 8501:8501 posenc      → http://localhost:8501
# For a lecture hall (more students than one process serves well), see deploy/README.md: several app
# processes behind HAProxy with sticky sessions (on a host, or several of these containers behind one proxy).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first: this layer is rebuilt only when requirements.txt changes.
COPY requirements.txt .
RUN pip install -r requirements.txt

# A user without a login shell or a writable app directory. The app writes only class mode's SQLite store, in
# the system's temp directory (POSENC_CLASS_DB moves it; posenc/class_store.py).
RUN useradd --system --uid 10001 --home-dir /home/posenc --create-home --shell /usr/sbin/nologin posenc

# The app: app.py, the page frame, lessons/, posenc/, data/ and .streamlit/ (.dockerignore leaves out the tests,
# the benchmark, the docs, git history and artifacts). Owned by root: the app user can read, not change it.
COPY . .

USER posenc
EXPOSE 8501

# slim has no curl: ask Streamlit's health endpoint with the Python that is already there.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4); sys.exit(0 if r.read().strip() == b'ok' else 1)"]

# Headless, no file watcher, no usage statistics: .streamlit/config.toml (copied above) says so, once.
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
