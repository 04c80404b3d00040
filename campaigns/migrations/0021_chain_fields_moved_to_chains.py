"""The 16 chain columns leave the campaign: their values were copied to ``chains.ChainNode`` by
``chains.0004_chain_node`` (this migration depends on it). Reversed, the columns come back with their
defaults, indexes and constraint, and ``chains.0004`` copies the values back before it drops its table.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0020_target_revision'),
        ('chains', '0004_chain_node'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='campaign',
            name='campaign_ws_chain_code_unique',
        ),
        migrations.RemoveIndex(
            model_name='campaign',
            name='campaign_ws_group_created',
        ),
        migrations.RemoveIndex(
            model_name='campaign',
            name='campaign_ws_group_parent',
        ),
        migrations.RemoveIndex(
            model_name='campaign',
            name='campaign_ws_root',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='ab_seed',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='approval_package',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='attribution_window_days',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='audience_filters',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='chain_action',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='chain_code',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='chain_control',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='chain_revision',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='goal',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='group',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='inheritance',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='needs_review',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='needs_review_reasons',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='parent',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='root',
        ),
        migrations.RemoveField(
            model_name='campaign',
            name='root_schedule',
        ),
    ]
