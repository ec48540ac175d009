/**
 * Unit tests need no display and must never reach one: each unit test worker (and whatever it
 * starts) runs without DISPLAY and WAYLAND_DISPLAY, so a unit test that tries to capture or
 * inject fails instead of touching the developer's desktop (such a test belongs in tests/e2e).
 */
delete process.env.DISPLAY;
delete process.env.WAYLAND_DISPLAY;
