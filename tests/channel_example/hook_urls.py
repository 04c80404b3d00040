from django.urls import path

from tests.channel_example.views import example_hook

urlpatterns = [path("example", example_hook, name="example-hook")]
