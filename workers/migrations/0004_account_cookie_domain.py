import django.db.models.deletion
from django.db import migrations, models


def bind_existing_cookies(apps, schema_editor):
    """Count stored cookies and take the site from an export that names exactly one.

    A cookie header (no domain of its own) used to follow the task link; it gets no site here, so
    the worker sends it nowhere until staff save the account"s site with fresh cookies.
    """
    from workers import cookies as jar

    account_model = apps.get_model("workers", "BrowserAccount")
    for account in account_model.objects.exclude(cookies="").iterator():
        try:
            items = jar.parse(account.cookies)
            sites = {jar.normalise_domain(i["domain"]) for i in items if i.get("domain")}
        except jar.CookieError:
            continue
        site = sites.pop() if len(sites) == 1 and all(i.get("domain") for i in items) else ""
        count, expires = jar.summary(items)
        account_model.objects.filter(pk=account.pk).update(
            cookie_domain=site, cookie_count=count, cookies_expire_at=expires
        )


class Migration(migrations.Migration):

    dependencies = [
        ("workers", "0003_error_code_address_not_allowed"),
    ]

    operations = [
        migrations.AddField(
            model_name="browseraccount",
            name="cookie_count",
            field=models.PositiveIntegerField(default=0, verbose_name="تعداد کوکی\u200cها"),
        ),
        migrations.AddField(
            model_name="browseraccount",
            name="cookie_domain",
            field=models.CharField(blank=True, max_length=253, verbose_name="دامنه سکو"),
        ),
        migrations.AddField(
            model_name="browseraccount",
            name="cookies_expire_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="انقضای کوکی\u200cها"),
        ),
        migrations.AlterField(
            model_name="campaignstatistics",
            name="campaign",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="browser_statistics",
                to="campaigns.campaign",
                verbose_name="کمپین",
            ),
        ),
        migrations.RunPython(bind_existing_cookies, migrations.RunPython.noop),
    ]
