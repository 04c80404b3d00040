"""The browser part of ``manage.py demo_data``: accounts logged in to the local demo site (`make run`
serves it), the Like steps of the "demo" platform and a Like campaign on two of its posts. Registered in
``WorkersConfig.ready()``; idempotent."""

from campaigns.models import Campaign
from campaigns.platform.tenancy import Actor

CAMPAIGN_NAME = "پسندیدن پست‌های سایت نمونه"
PLATFORM = "demo"
PROXY_LABEL = "پراکسی نمونه"


def browser_demo(*, workspace, user, actor: Actor, stdout) -> None:
    from workers.errors import AddressNotAllowedError
    from workers.management.commands.demo_site import DEMO_PROXY_CREDENTIALS, DEMO_PROXY_PORT, DEMO_SITE_PORT
    from workers.models import ActionConfig, BrowserAccount, Proxy
    from workers.services.accounts import account_create, account_update, proxy_create
    from workers.services.action_configs import action_config_create
    from workers.services.campaigns import browser_campaign_create

    accounts = []
    for i in range(1, 4):
        label = f"حساب نمونه {i}"
        session = {"cookies": f"session=valid-demo-{i}", "cookie_domain": "127.0.0.1"}  # the demo site's host
        account = BrowserAccount.objects.filter(workspace=workspace, platform=PLATFORM, label=label).first()
        if account is None:
            account = account_create(actor=actor, label=label, platform=PLATFORM, **session)
        elif not account.cookie_domain:  # stored before cookies were bound to a site
            account = account_update(actor=actor, account_id=account.pk, data=session)
        accounts.append(account)
    if not Proxy.objects.filter(workspace=workspace, host="127.0.0.1", port=DEMO_PROXY_PORT).exists():
        username, password = DEMO_PROXY_CREDENTIALS  # `make run` serves it in front of the demo site
        try:
            proxy_create(
                actor=actor,
                label=PROXY_LABEL,
                host="127.0.0.1",
                port=DEMO_PROXY_PORT,
                username=username,
                password=password,
            )
        except AddressNotAllowedError:  # a loopback proxy is allowed only where the demo site is (embedded default)
            stdout.write("demo browser: no demo proxy (127.0.0.1:8767 is not in BROWSER_ALLOWED_PRIVATE_HOSTS)")
        else:
            stdout.write(f"demo browser: proxy «{PROXY_LABEL}» (127.0.0.1:{DEMO_PROXY_PORT})")
    if not ActionConfig.objects.filter(workspace=workspace, platform=PLATFORM, action_type="like").exists():
        action_config_create(
            actor=actor,
            platform=PLATFORM,
            action_type="like",
            steps=[
                {"action": "goto"},
                {"action": "click", "selector": "#like"},
                {"action": "verify", "selector": ".liked"},
            ],
            login_check={"login_url_patterns": ["/login"], "logged_in_selector": "#me"},
        )
    if Campaign.objects.filter(workspace=workspace, name=CAMPAIGN_NAME).exists():
        return
    site = f"http://127.0.0.1:{DEMO_SITE_PORT}"
    try:
        browser_campaign_create(
            actor=actor,
            name=CAMPAIGN_NAME,
            platform=PLATFORM,
            action="like",
            accounts=[a.id for a in accounts],
            target_links=[f"{site}/post/{n}" for n in (1, 2)],
        )
    except AddressNotAllowedError:  # DATABASE_URL set: the demo site is not on the allow-list unless named there
        stdout.write(
            f"demo browser: no demo campaign (127.0.0.1:{DEMO_SITE_PORT} is not in BROWSER_ALLOWED_PRIVATE_HOSTS;"
            f" add 127.0.0.1:{DEMO_SITE_PORT},127.0.0.1:{DEMO_PROXY_PORT} to it for the demo site)"
        )
        return
    stdout.write(f"demo browser: campaign «{CAMPAIGN_NAME}»")
