"""Where tickwork meets a host: `sqlite` on CPython, `workers` on Cloudflare's runtime."""
